// Package fakes lists the fake of every kind of this build (each
// <kind>test package's Kind()), for the sandbox and for the tests that
// cover every kind: a new kind is covered by one line here and its row in
// kinds.
package fakes

import (
	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/kinds/googledrive/googledrivetest"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/jira/jiratest"
	"github.com/tributary-dev/tributary/kinds/linear/lineartest"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/slack/slacktest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// All returns every kind's fake, sorted by type.
func All() []fakeserver.Kind {
	return []fakeserver.Kind{
		githubtest.Kind(),
		gongtest.Kind(),
		googledrivetest.Kind(),
		hubspottest.Kind(),
		intercomtest.Kind(),
		jiratest.Kind(),
		lineartest.Kind(),
		mailchimptest.Kind(),
		salesforcetest.Kind(),
		slacktest.Kind(),
		zendesktest.Kind(),
	}
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
