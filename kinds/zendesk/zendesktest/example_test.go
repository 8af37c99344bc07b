package zendesktest_test

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// Start a fake Zendesk with 10 tickets and read the first page with plain
// net/http, authenticating with an API token as Zendesk expects.
func Example() {
	srv := zendesktest.New(zendesktest.WithTickets(10))
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v2/tickets.json?per_page=4", nil)
	req.SetBasicAuth(zendesktest.DefaultEmail+"/token", zendesktest.DefaultAPIToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()

	var page struct {
		Tickets []struct {
			ID      int64  `json:"id"`
			Subject string `json:"subject"`
		} `json:"tickets"`
		NextPage *string `json:"next_page"`
		Count    int     `json:"count"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, page.Count, len(page.Tickets), page.NextPage != nil)
	fmt.Println(page.Tickets[0].ID, page.Tickets[0].Subject)
	// Output:
	// 200 10 4 true
	// 35436 Cannot log in to the dashboard #0
}
