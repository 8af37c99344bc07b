package gongtest_test

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
)

// A fake Gong with 250 calls; one plain GET of the first page of calls.
func Example() {
	s := gongtest.New(gongtest.WithCalls(250))
	defer s.Close()

	req, _ := http.NewRequest("GET", s.URL+"/v2/calls?fromDateTime=2024-01-01T00:00:00Z", nil)
	req.SetBasicAuth(gongtest.DefaultAccessKey, gongtest.DefaultAccessKeySecret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()

	var page struct {
		Records struct {
			TotalRecords    int    `json:"totalRecords"`
			CurrentPageSize int    `json:"currentPageSize"`
			Cursor          string `json:"cursor"`
		} `json:"records"`
		Calls []struct {
			ID      string `json:"id"`
			Started string `json:"started"`
		} `json:"calls"`
	}
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.StatusCode, page.Records.TotalRecords, page.Records.CurrentPageSize, page.Records.Cursor != "")
	fmt.Println(page.Calls[0].ID, page.Calls[0].Started)
	// Output:
	// 200 250 100 true
	// 7782342274000000000 2024-01-01T08:00:00Z
}
