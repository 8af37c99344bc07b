// Package fakes lists the fake of every kind of this build (each
// <kind>test package's Kind()), for the sandbox and for the tests that
// cover every kind: a new kind is covered by one line here and its row in
// kinds.
package fakes

import (
	"slices"

	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/internal/race"
	"github.com/tributary-dev/tributary/kinds/asana/asanatest"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/kinds/googledrive/googledrivetest"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/jira/jiratest"
	"github.com/tributary-dev/tributary/kinds/linear/lineartest"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
	"github.com/tributary-dev/tributary/kinds/notion/notiontest"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
	"github.com/tributary-dev/tributary/kinds/stripe/stripetest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// All returns every kind's fake, sorted by type.
func All() []fakeserver.Kind {
	return []fakeserver.Kind{
		asanatest.Kind(),
		githubtest.Kind(),
		gongtest.Kind(),
		googledrivetest.Kind(),
		hubspottest.Kind(),
		intercomtest.Kind(),
		jiratest.Kind(),
		lineartest.Kind(),
		mailchimptest.Kind(),
		notiontest.Kind(),
		salesforcetest.Kind(),
		slacktest.Kind(),
		stripetest.Kind(),
		zendesktest.Kind(),
	}
}

// Suite returns the kinds a test that covers every kind walks: All, and
// Sample's under the race detector. The race detector makes the pure-Go
// SQLite and the fakes five to ten times slower, every kind's walk runs
// the same shared code, and each kind's own package runs under the
// detector too; the plain `go test ./...` walks every kind.
func Suite() []fakeserver.Kind {
	if race.Enabled {
		return Sample()
	}
	return All()
}

// Sample returns four kinds whose shared mechanisms differ most: Zendesk's
// cursor export and fan-out, Jira's zoned feed with its sweep, Slack's
// rate tiers, Google Drive's token feed and downloads. Suites that repeat
// every kind's walk on a second backend (PostgreSQL, where the SQLite run
// already covers the kind) use it in the README's `go test ./...`, and
// every kind under TRIBUTARY_LONG=1 (a CI step).
func Sample() []fakeserver.Kind {
	return slices.DeleteFunc(All(), func(k fakeserver.Kind) bool {
		return !slices.Contains([]string{"zendesk-support", "jira", "slack", "google-drive"}, k.Type)
	})
}

// Of returns the fake of connectorType; false when there is none.
func Of(connectorType string) (fakeserver.Kind, bool) {
	for _, k := range All() {
		if k.Type == connectorType {
			return k, true
		}
	}
	return fakeserver.Kind{}, false
}
