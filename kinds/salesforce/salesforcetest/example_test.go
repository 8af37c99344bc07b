package salesforcetest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
)

func Example() {
	fake := salesforcetest.New(salesforcetest.WithAccounts(1000))
	defer fake.Close()

	q := url.QueryEscape("SELECT Id, Name FROM Account ORDER BY CreatedDate")
	req, _ := http.NewRequest(http.MethodGet, fake.URL+"/services/data/v67.0/query?q="+q, nil)
	req.Header.Set("Authorization", "Bearer "+salesforcetest.DefaultAccessToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()

	var page struct {
		TotalSize      int    `json:"totalSize"`
		Done           bool   `json:"done"`
		NextRecordsURL string `json:"nextRecordsUrl"`
		Records        []struct {
			ID   string `json:"Id"`
			Name string `json:"Name"`
		} `json:"records"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(page.TotalSize, page.Done, len(page.Records), page.Records[0].ID)
	// Output: 1000 false 200 001RO0000000001YAA
}
