package main

import (
	"strings"
	"time"

	"github.com/tributary-dev/tributary/internal/fakeserver"
	"github.com/tributary-dev/tributary/kinds/github/githubtest"
	"github.com/tributary-dev/tributary/kinds/gong/gongtest"
	"github.com/tributary-dev/tributary/kinds/hubspot/hubspottest"
	"github.com/tributary-dev/tributary/kinds/intercom/intercomtest"
	"github.com/tributary-dev/tributary/kinds/mailchimp/mailchimptest"
	"github.com/tributary-dev/tributary/kinds/salesforce/salesforcetest"
	"github.com/tributary-dev/tributary/kinds/zendesk/zendesktest"
)

// kindSpec is one of the seven original kinds as the fleet runs it: how
// to start one account's fake of n records an entity, enforcing the
// vendor's documented rate limit on the real clock, and how to mark an
// account's credentials.
type kindSpec struct {
	kind string
	// start starts one account's fake: about n records in each of its
	// main entities, the vendor's limits enforced per account.
	start func(n int) fakeserver.Fake
	// creds are the credentials every account's fake accepts; mark is
	// the field the account marker is written into.
	creds map[string]any
	mark  string
	// replication is the kind's required replication_config, if any.
	replication map[string]any
	// limit says, for the report, which budget the fake enforces.
	limit string
}

// specs are the seven original kinds, sorted by type.
func specs() []kindSpec {
	real := fakeserver.NewRealClock
	return []kindSpec{{
		kind: "github", mark: "token", creds: map[string]any{"token": githubtest.DefaultToken},
		limit: "5,000 requests an hour per token",
		start: func(n int) fakeserver.Fake {
			return githubtest.New(githubtest.WithClock(real()), githubtest.WithCoreLimit(githubtest.DefaultCoreLimit), githubtest.WithCoreWindow(time.Hour),
				githubtest.WithRepos(1), githubtest.WithIssues(n), githubtest.WithPulls(max(n/2, 1)), githubtest.WithCommits(n), githubtest.WithUsers(max(n/2, 1)),
				githubtest.WithReleases(2), githubtest.WithBranches(2), githubtest.WithMilestones(2), githubtest.WithTeams(2))
		},
	}, {
		kind: "gong", mark: "access_key_secret", creds: map[string]any{"access_key": gongtest.DefaultAccessKey, "access_key_secret": gongtest.DefaultAccessKeySecret},
		limit: "3 requests a second per company",
		start: func(n int) fakeserver.Fake {
			return gongtest.New(gongtest.WithMutationClock(real()), gongtest.WithRateLimit(3, time.Second), gongtest.WithCalls(n), gongtest.WithUsers(max(n/2, 1)))
		},
	}, {
		kind: "hubspot", mark: "private_app_token", creds: map[string]any{"private_app_token": hubspottest.DefaultPrivateAppToken},
		limit: "100 requests per 10 s per app",
		start: func(n int) fakeserver.Fake {
			return hubspottest.New(hubspottest.WithClock(real()), hubspottest.WithRateLimit(100, 10*time.Second),
				hubspottest.WithContacts(n), hubspottest.WithCompanies(n), hubspottest.WithDeals(n), hubspottest.WithTickets(n),
				hubspottest.WithEngagements(max(n/4, 1)), hubspottest.WithCustomObjects(max(n/4, 1)))
		},
	}, {
		kind: "intercom", mark: "access_token", creds: map[string]any{"access_token": intercomtest.DefaultAccessToken},
		replication: map[string]any{"start_date": "2024-01-01T00:00:00Z"},
		limit:       "1,666 requests per 10 s per app",
		start: func(n int) fakeserver.Fake {
			return intercomtest.New(intercomtest.WithClock(real()), intercomtest.WithRateLimit(intercomtest.DefaultRateLimit),
				intercomtest.WithContacts(n), intercomtest.WithConversations(n), intercomtest.WithCompanies(n))
		},
	}, {
		kind: "mailchimp", mark: "api_key", creds: map[string]any{"api_key": mailchimptest.DefaultAPIKey},
		limit: "10 requests at once per key",
		start: func(n int) fakeserver.Fake {
			return mailchimptest.New(mailchimptest.WithClock(real()), mailchimptest.WithConcurrencyLimit(mailchimptest.DefaultConcurrencyLimit),
				mailchimptest.WithCampaigns(n), mailchimptest.WithLists(1), mailchimptest.WithListMembers(n))
		},
	}, {
		kind: "salesforce", mark: "refresh_token",
		creds: map[string]any{"client_id": salesforcetest.DefaultClientID, "client_secret": salesforcetest.DefaultClientSecret, "refresh_token": salesforcetest.DefaultRefreshToken},
		limit: "15,000 requests a day per org",
		start: func(n int) fakeserver.Fake {
			return salesforcetest.New(salesforcetest.WithClock(real()), salesforcetest.WithDailyAPILimit(salesforcetest.DefaultDailyAPILimit),
				salesforcetest.WithAccounts(n), salesforcetest.WithContacts(n), salesforcetest.WithLeads(n), salesforcetest.WithOpportunities(n),
				salesforcetest.WithTasks(n), salesforcetest.WithEvents(n), salesforcetest.WithCampaigns(n), salesforcetest.WithCases(n),
				salesforcetest.WithNotes(n), salesforcetest.WithContentVersions(max(n/4, 1)), salesforcetest.WithAttachments(max(n/4, 1)))
		},
	}, {
		kind: "zendesk-support", mark: "api_token",
		creds: map[string]any{"subdomain": zendesktest.DefaultSubdomain, "email": zendesktest.DefaultEmail, "api_token": zendesktest.DefaultAPIToken},
		limit: "700 requests a minute per account, exports 10 a minute",
		start: func(n int) fakeserver.Fake {
			return zendesktest.New(zendesktest.WithClock(real()), zendesktest.WithAPIRateLimit(zendesktest.DefaultRateLimit, time.Minute),
				zendesktest.WithExportRateLimit(10, time.Minute),
				zendesktest.WithTickets(n), zendesktest.WithUsers(n), zendesktest.WithOrganizations(max(n/2, 1)), zendesktest.WithArticles(max(n/2, 1)))
		},
	}}
}

// marker is what an account's credential carries: "~a" and the account's
// number, six digits.
const markerPrefix, markerDigits = "~a", 6

// credentials returns account i's credentials: the kind's, with the
// marker in the field mark names (before a Mailchimp key's data center,
// which the key must end with).
func (k kindSpec) credentials(i int) map[string]any {
	out := make(map[string]any, len(k.creds))
	for f, v := range k.creds {
		out[f] = v
	}
	m := marker(i)
	v := k.creds[k.mark].(string)
	if j := strings.LastIndexByte(v, '-'); k.kind == "mailchimp" && j > 0 {
		out[k.mark] = v[:j] + m + v[j:]
	} else {
		out[k.mark] = v + m
	}
	return out
}
