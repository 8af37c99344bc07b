package kinds_test

import (
	"slices"
	"testing"

	"github.com/tributary-dev/tributary/kinds"
)

// TestOAuthConsentNotes keeps what a connect page tells the person who
// consents true to each kind's OAuth app: a note is about a scope the app
// asks for; the scopes that also write (GitHub's repo, Salesforce's api)
// say so; a kind that asks for no scope says what the consent grants
// instead; and changing the copy kinds.OAuthApp returns changes no one
// else's.
func TestOAuthConsentNotes(t *testing.T) {
	for _, kind := range kinds.Types() {
		app, err := kinds.OAuthApp(kind)
		if err != nil {
			t.Fatal(err)
		}
		for scope := range app.ScopeNotes {
			if !slices.Contains(app.Scopes, scope) {
				t.Errorf("%s: a note on %q, which the app does not ask for (%q)", kind, scope, app.Scopes)
			}
		}
		if len(app.Scopes) == 0 && app.ConsentNote == "" {
			t.Errorf("%s asks for no scope and does not say what its consent grants (ConsentNote)", kind)
		}
		if len(app.Scopes) > 0 && app.ConsentNote != "" {
			t.Errorf("%s asks for scopes %q and has a ConsentNote too: say it of its scopes", kind, app.Scopes)
		}
		for k, v := range app.ScopeNotes {
			app.ScopeNotes[k] = v + " (changed)"
		}
		again, _ := kinds.OAuthApp(kind)
		for k, v := range again.ScopeNotes {
			if v == app.ScopeNotes[k] {
				t.Errorf("%s: changing the returned app's notes changed the kind's", kind)
			}
		}
	}
	for kind, scope := range map[string]string{"github": "repo", "salesforce": "api"} {
		app, _ := kinds.OAuthApp(kind)
		if note := app.ScopeNotes[scope]; note == "" {
			t.Errorf("%s's %q scope also writes, and its note does not say so", kind, scope)
		}
	}
}
