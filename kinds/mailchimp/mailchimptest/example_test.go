package mailchimptest_test

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
)

// Start a fake with 1,000 members per audience and read the first page of
// audiences the way Mailchimp expects: Basic auth with any user name and the
// API key as the password, the documented path under /3.0.
func Example() {
	srv := mailchimptest.New(mailchimptest.WithListMembers(1000))
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/3.0/lists?count=2", nil)
	req.SetBasicAuth("anystring", mailchimptest.DefaultAPIKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()

	var page struct {
		Lists []struct {
			ID    string `json:"id"`
			Stats struct {
				MemberCount int `json:"member_count"`
			} `json:"stats"`
		} `json:"lists"`
		TotalItems int `json:"total_items"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode, len(page.Lists), "of", page.TotalItems, "audiences")
	fmt.Println("subscribed members:", page.Lists[0].Stats.MemberCount)
	// Output:
	// 200 2 of 3 audiences
	// subscribed members: 800
}
