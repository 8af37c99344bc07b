package intercomtest_test

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
)

// Start a fake workspace with 120 contacts and read the first page of
// contacts with plain net/http, as from https://api.intercom.io.
func Example() {
	srv := intercomtest.New(intercomtest.WithContacts(120))
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/contacts?per_page=50", nil)
	req.Header.Set("Authorization", "Bearer "+intercomtest.DefaultAccessToken)
	req.Header.Set("Intercom-Version", "2.11")
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()

	var page struct {
		Type       string            `json:"type"`
		Data       []json.RawMessage `json:"data"`
		TotalCount int               `json:"total_count"`
		Pages      struct {
			TotalPages int `json:"total_pages"`
			Next       *struct {
				StartingAfter string `json:"starting_after"`
			} `json:"next"`
		} `json:"pages"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, page.Type, len(page.Data), page.TotalCount, page.Pages.TotalPages, page.Pages.Next != nil)
	// Output: 200 list 50 120 3 true
}
