package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tributary-dev/tributary/internal/browsertest"
)

// The real browser is the user: the command opens the consent URL in it
// (the test's opener navigates Chromium there), the user presses Approve
// on the fake's consent page, and the browser lands on the command's
// "Connected" page, with no console error on the way.
func TestConnectInRealBrowser(t *testing.T) {
	b := browsertest.New(t, time.Minute)
	navigated := make(chan error, 1)
	open := func(_ context.Context, url string) error {
		err := chromedp.Do(b.Ctx, chromedp.Navigate(url))
		navigated <- err
		return err
	}
	out := filepath.Join(t.TempDir(), "salesforce.json")
	r := startOwnApp(t, context.Background(), nil, open, "salesforce", "--out", out, "--timeout", "1m")
	select {
	case err := <-navigated:
		if err != nil {
			t.Fatalf("opening the consent page: %v", err)
		}
	case code := <-r.done:
		t.Fatalf("the command ended (%d) without opening the browser:\n%s", code, r.stderr)
	}
	heading, err := chromedp.Run(b.Ctx, chromedp.Text("h1"))
	if err != nil || !strings.Contains(heading, "Salesforce") {
		t.Fatalf("consent page heading %q: %v", heading, err)
	}
	err = chromedp.Do(b.Ctx,
		chromedp.Click(chromedp.CSS(`button[value="approve"]`)),
		chromedp.WaitVisible(chromedp.ID("result")),
	)
	if err != nil {
		t.Fatal(err)
	}
	result, err := chromedp.Run(b.Ctx, chromedp.Text(chromedp.ID("result")))
	if err != nil || result != "Connected — you can close this tab" {
		t.Errorf("the browser shows %q (%v)", result, err)
	}
	title, err := chromedp.Run(b.Ctx, chromedp.Title())
	if err != nil || !strings.HasPrefix(title, "Connected") {
		t.Errorf("title %q (%v)", title, err)
	}
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d\n%s", code, r.stderr)
	}
	if creds := readCreds(t, out); creds["instance_url"] == nil {
		t.Errorf("no instance_url in %v", keysOf(creds))
	}
	if p := b.Problems(); len(p) > 0 {
		t.Errorf("console errors: %q\n%s", p, r.stderr)
	}

	// Deny: the browser lands on the command's refusal, and no file. Its
	// 403 status is the only thing the console reports.
	denied := filepath.Join(t.TempDir(), "denied.json")
	r = startOwnApp(t, context.Background(), nil, open, "salesforce", "--out", denied, "--timeout", "1m")
	if err := <-navigated; err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(b.Ctx,
		chromedp.Click(chromedp.CSS(`button[value="deny"]`)),
		chromedp.WaitVisible(chromedp.ID("result")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if result, err := chromedp.Run(b.Ctx, chromedp.Text(chromedp.ID("result"))); err != nil || result != "Access denied" {
		t.Errorf("after Deny the browser shows %q (%v)", result, err)
	}
	if code := r.wait(t); code != exitAuth {
		t.Errorf("exit %d after Deny, want %d", code, exitAuth)
	}
	noFile(t, denied)
	for _, p := range b.Problems() {
		if !strings.Contains(p, "/callback?error=access_denied") || !strings.Contains(p, "status of 403") {
			t.Errorf("console error: %s", p)
		}
	}
}
