// Package kinds opens direct-mode connectors by connector_type, from the
// same credentials object the hosted create call takes, and describes each
// kind's catalogue and credentials without opening anything.
package kinds

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/suggest"
	"github.com/tributary-dev/tributary/kinds/asana"
	"github.com/tributary-dev/tributary/kinds/github"
	"github.com/tributary-dev/tributary/kinds/gong"
	"github.com/tributary-dev/tributary/kinds/googledrive"
	"github.com/tributary-dev/tributary/kinds/hubspot"
	"github.com/tributary-dev/tributary/kinds/intercom"
	"github.com/tributary-dev/tributary/kinds/jira"
	"github.com/tributary-dev/tributary/kinds/linear"
	"github.com/tributary-dev/tributary/kinds/mailchimp"
	"github.com/tributary-dev/tributary/kinds/notion"
	"github.com/tributary-dev/tributary/kinds/salesforce"
	"github.com/tributary-dev/tributary/kinds/slack"
	"github.com/tributary-dev/tributary/kinds/stripe"
	"github.com/tributary-dev/tributary/kinds/zendesk"
)

// OpenFunc builds a connector of one kind from its credentials object.
type OpenFunc func(credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error)

// kind is what this package knows of one connector kind.
type kind struct {
	open      OpenFunc
	catalogue func() []tributary.Entity
	check     func(credentials map[string]any) error
	// config declares the keys of the kind's replication_config (nil: it
	// takes none).
	config func() []tributary.Param
	// replication checks what the declaration cannot say of a
	// replication_config (a date's format), after it.
	replication func(config map[string]any) error
	// oauth describes the vendor's OAuth authorization-code flow.
	oauth func() tributary.OAuthApp
}

// registry lists the kinds this build knows.
func registry() map[string]kind {
	return map[string]kind{
		asana.Type: {open: asana.Open, catalogue: asana.Catalogue, oauth: asana.OAuthApp,
			check: func(m map[string]any) error { _, err := asana.CredentialsFromMap(m); return err }},
		github.Type: {open: github.Open, catalogue: github.Catalogue, oauth: github.OAuthApp,
			check:  func(m map[string]any) error { _, err := github.CredentialsFromMap(m); return err },
			config: github.ReplicationParams, replication: github.CheckReplicationConfig},
		gong.Type: {open: gong.Open, catalogue: gong.Catalogue, oauth: gong.OAuthApp,
			check: func(m map[string]any) error { _, err := gong.CredentialsFromMap(m); return err }},
		googledrive.Type: {open: googledrive.Open, catalogue: googledrive.Catalogue, oauth: googledrive.OAuthApp,
			check: func(m map[string]any) error { _, err := googledrive.CredentialsFromMap(m); return err }},
		hubspot.Type: {open: hubspot.Open, catalogue: hubspot.Catalogue, oauth: hubspot.OAuthApp,
			check: func(m map[string]any) error { _, err := hubspot.CredentialsFromMap(m); return err }},
		intercom.Type: {open: intercom.Open, catalogue: intercom.Catalogue, oauth: intercom.OAuthApp,
			check:  func(m map[string]any) error { _, err := intercom.CredentialsFromMap(m); return err },
			config: intercom.ReplicationParams, replication: intercom.CheckReplicationConfig},
		jira.Type: {open: jira.Open, catalogue: jira.Catalogue, oauth: jira.OAuthApp,
			check: func(m map[string]any) error { _, err := jira.CredentialsFromMap(m); return err }},
		linear.Type: {open: linear.Open, catalogue: linear.Catalogue, oauth: linear.OAuthApp,
			check: func(m map[string]any) error { _, err := linear.CredentialsFromMap(m); return err }},
		mailchimp.Type: {open: mailchimp.Open, catalogue: mailchimp.Catalogue, oauth: mailchimp.OAuthApp,
			check: func(m map[string]any) error { _, err := mailchimp.CredentialsFromMap(m); return err }},
		notion.Type: {open: notion.Open, catalogue: notion.Catalogue, oauth: notion.OAuthApp,
			check: func(m map[string]any) error { _, err := notion.CredentialsFromMap(m); return err }},
		salesforce.Type: {open: salesforce.Open, catalogue: salesforce.Catalogue, oauth: salesforce.OAuthApp,
			check: func(m map[string]any) error { _, err := salesforce.CredentialsFromMap(m); return err }},
		slack.Type: {open: slack.Open, catalogue: slack.Catalogue, oauth: slack.OAuthApp,
			check: func(m map[string]any) error { _, err := slack.CredentialsFromMap(m); return err }},
		stripe.Type: {open: stripe.Open, catalogue: stripe.Catalogue, oauth: stripe.OAuthApp,
			check: func(m map[string]any) error { _, err := stripe.CredentialsFromMap(m); return err }},
		zendesk.Type: {open: zendesk.Open, catalogue: zendesk.Catalogue, oauth: zendesk.OAuthApp,
			check: func(m map[string]any) error { _, err := zendesk.CredentialsFromMap(m); return err }},
	}
}

// Types lists the connector types this build can open, sorted.
func Types() []string {
	r := registry()
	out := make([]string, 0, len(r))
	for t := range r {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

func lookup(connectorType string) (kind, error) {
	k, ok := registry()[connectorType]
	if !ok {
		return kind{}, &tributary.Error{Kind: connectorType, Err: tributary.ErrUnknownKind,
			Message: fmt.Sprintf("unknown connector_type %q%s (known: %s)", connectorType, suggest.Hint(connectorType, Types()), strings.Join(Types(), ", "))}
	}
	return k, nil
}

// Open builds a direct-mode connector of connectorType. An unknown type
// matches tributary.ErrUnknownKind; missing, unknown or conflicting
// credential fields are errors matching tributary.ErrInvalidCredentials,
// before anything is sent.
func Open(connectorType string, credentials map[string]any, opts ...tributary.Option) (tributary.Connector, error) {
	k, err := lookup(connectorType)
	if err != nil {
		return nil, err
	}
	return k.open(credentials, opts...)
}

// Catalogue returns the catalogue of connectorType.
func Catalogue(connectorType string) ([]tributary.Entity, error) {
	k, err := lookup(connectorType)
	if err != nil {
		return nil, err
	}
	return k.catalogue(), nil
}

// OAuthApp returns the description of connectorType's OAuth
// authorization-code flow (consent and token URLs, scopes, PKCE, the
// credentials fields the exchange produces), a copy the caller may change.
// The package connect runs it.
func OAuthApp(connectorType string) (tributary.OAuthApp, error) {
	k, err := lookup(connectorType)
	if err != nil {
		return tributary.OAuthApp{}, err
	}
	return k.oauth().Clone(), nil
}

// CheckCredentials checks a credentials object against its kind exactly as
// Open does, without building anything.
func CheckCredentials(connectorType string, credentials map[string]any) error {
	k, err := lookup(connectorType)
	if err != nil {
		return err
	}
	return k.check(credentials)
}

// Verify asks the source whether conn's credentials work: one cheap
// authenticated request that every kind of this package declares (GitHub
// GET /user, HubSpot GET /account-info/v3/details, Mailchimp GET
// /3.0/ping, Gong GET /v2/users, Intercom GET /me, Jira GET
// /rest/api/3/myself, Salesforce GET
// /services/data/vXX.X/limits, Zendesk GET /api/v2/users/me.json), sent
// with the connector's authentication (an OAuth refresh first when it
// holds no access token), retries and error parsing. It returns nil when
// the source accepted them; an error matching tributary.ErrUnauthorized
// or ErrForbidden when it refused them; ErrUnreachable, ErrServer or
// ErrRateLimited when it could not tell. A connector of another package
// (a hosted one) is not checked: nil.
func Verify(ctx context.Context, conn tributary.Connector) error {
	if v, ok := conn.(interface{ CheckCredentials(context.Context) error }); ok {
		return v.CheckCredentials(ctx)
	}
	return nil
}

// CheckReplicationConfig checks the replication_config a hosted create call
// would send for connectorType against the keys the kind declares
// (ReplicationParams): required keys present, types and values right, an
// unknown key named with the nearest declared one. A kind that declares
// none takes none.
func CheckReplicationConfig(connectorType string, config map[string]any) error {
	_, err := NormalizeReplicationConfig(connectorType, config)
	return err
}

// NormalizeReplicationConfig is CheckReplicationConfig returning the
// config in normal form (integers as int64, arrays as []any), as the
// kind's copy scopes read it.
func NormalizeReplicationConfig(connectorType string, config map[string]any) (map[string]any, error) {
	k, err := lookup(connectorType)
	if err != nil {
		return nil, err
	}
	if k.config == nil {
		if len(config) > 0 {
			return nil, &tributary.Error{Kind: connectorType, Param: "replication_config", Err: tributary.ErrInvalidParams, Message: connectorType + " takes no replication_config"}
		}
		return nil, nil
	}
	out, err := tributary.ValidateConfig(connectorType, k.config(), config)
	if err != nil {
		return nil, err
	}
	if k.replication != nil {
		if err := k.replication(out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ReplicationParams returns the keys of connectorType's replication_config
// (nil when it takes none), for describe and the MCP server's catalogue.
func ReplicationParams(connectorType string) []tributary.Param {
	k, err := lookup(connectorType)
	if err != nil || k.config == nil {
		return nil
	}
	return k.config()
}
