package connect_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/connect"
	"github.com/tributary-dev/tributary/kinds"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
)

// The whole flow against the Salesforce fake, without a browser: an
// http.Client plays the user who approves on the consent page, and an
// httptest server plays the application's redirect URL.
func Example() {
	vendor := salesforcetest.New()
	defer vendor.Close()

	// The application's callback: it receives the code and the state.
	callback := make(chan url.Values, 1)
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		callback <- r.URL.Query()
		fmt.Fprintln(w, "You may close this window.")
	}))
	defer app.Close()

	flow, err := connect.New("salesforce", connect.Config{
		ClientID:     salesforcetest.DefaultClientID,
		ClientSecret: salesforcetest.DefaultClientSecret,
		RedirectURL:  app.URL + "/callback",
		BaseURL:      vendor.URL, // the fake instead of login.salesforce.com
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Request 1: send the user to auth.URL; keep auth.State and
	// auth.Verifier (a service keeps them in the user's session).
	auth := flow.AuthCodeURL()

	// The user: open the consent page, press Approve (the page's form
	// posts decision=approve to the same URL); the browser follows the
	// redirect to the callback.
	if res, err := http.Get(auth.URL); err == nil {
		res.Body.Close()
		fmt.Println("consent page:", res.Status)
	}
	res, err := http.PostForm(auth.URL, url.Values{"decision": {"approve"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res.Body.Close()

	// Request 2, at the callback: check the state, exchange the code.
	code, err := flow.Callback(<-callback, auth.State)
	if err != nil {
		fmt.Println(err)
		return
	}
	creds, err := flow.Exchange(context.Background(), code, auth.Verifier)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("instance_url is the fake:", creds["instance_url"] == vendor.URL)
	fmt.Printf("%v\n", creds["client_id"])

	// The credentials open the connector as they are.
	c, err := kinds.Open("salesforce", creds, tributary.WithBaseURL(vendor.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	page, err := c.List(context.Background(), "query", tributary.Params{"q": "SELECT Id FROM Account LIMIT 3"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(page.Records), "accounts")
	// Output:
	// consent page: 200 OK
	// instance_url is the fake: true
	// TEST_CLIENT_ID
	// 3 accounts
}
