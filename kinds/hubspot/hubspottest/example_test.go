package hubspottest_test

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
)

func Example() {
	srv := hubspottest.New(hubspottest.WithContacts(5))
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/crm/v3/objects/contacts?limit=2&properties=email", nil)
	req.Header.Set("Authorization", "Bearer "+hubspottest.DefaultPrivateAppToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()

	var page struct {
		Results []struct {
			ID         string             `json:"id"`
			Properties map[string]*string `json:"properties"`
		} `json:"results"`
		Paging *struct {
			Next struct {
				After string `json:"after"`
			} `json:"next"`
		} `json:"paging"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.StatusCode)
	for _, c := range page.Results {
		fmt.Println(c.ID, *c.Properties["email"])
	}
	fmt.Println("next after:", page.Paging.Next.After)
	// Output:
	// 200
	// 10100000001 ada.example0@example.com
	// 10100000002 sam.example1@example.org
	// next after: 10100000003
}
