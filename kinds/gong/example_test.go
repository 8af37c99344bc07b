package gong_test

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
)

// Walk the calls of a period with the typed handle, then read the first
// bytes of one call's audio, against the fake Gong.
func Example() {
	srv := gongtest.New(gongtest.WithCalls(250))
	defer srv.Close()

	c, err := gong.New(gong.Credentials{AccessKey: gongtest.DefaultAccessKey, AccessKeySecret: gongtest.DefaultAccessKeySecret},
		tributary.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	n, first := 0, ""
	for call, err := range c.Calls().All(ctx, gong.CallListParams{FromDateTime: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		if n == 0 {
			first = call.ID
		}
		n++
	}
	fmt.Println(n, "calls, the first", first)

	s, err := c.CallAudio(ctx, first, "bytes=0-2")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	head, _ := io.ReadAll(s)
	fmt.Printf("%s, %d of %d bytes: %q\n", s.ContentType, len(head), s.Size, head)
	// Output:
	// 234 calls, the first 7782342274000000016
	// audio/mpeg, 3 of 65536 bytes: "ID3"
}

// The generic form of an operation: nested parameters as dotted keys.
func ExampleClient_List() {
	srv := gongtest.New()
	defer srv.Close()
	c, _ := gong.Open(map[string]any{"access_key": gongtest.DefaultAccessKey, "access_key_secret": gongtest.DefaultAccessKeySecret},
		tributary.WithBaseURL(srv.URL))

	res, err := tributary.Execute(context.Background(), c, tributary.Request{Entity: "stats_activity_aggregate", Action: "list",
		Params: tributary.Params{"filter.fromDate": "2024-01-01", "filter.toDate": "2024-02-01", "filter.userIds": []string{srv.UserID(1)}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	hosted, _ := res.Records[0].IntAt("userAggregateActivityStats.callsAsHost")
	fmt.Println(len(res.Records), "user;", hosted, "calls as host; pagination", res.Meta["pagination"])
	// Output:
	// 1 user; 10 calls as host; pagination map[currentPageNumber:0 currentPageSize:1 totalRecords:1]
}
