package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tributary-dev/tributary"
	"golang.org/x/oauth2"
)

// credField is one field of a kind's credentials object.
type credField struct {
	name   string
	secret bool
	bool   bool // a JSON boolean rather than a string
}

// kindInfo is what the command knows of a kind beyond its catalogue: the
// vendor, the fields of its credentials object and how they combine. A test
// checks the fields against each kind's own list of accepted fields.
type kindInfo struct {
	vendor  string
	fields  []credField
	methods string
}

func kindInfos() map[string]kindInfo {
	s := func(name string) credField { return credField{name: name, secret: true} }
	p := func(name string) credField { return credField{name: name} }
	return map[string]kindInfo{
		"asana": {"Asana REST API 1.0", []credField{s("token"), s("access_token"), s("refresh_token"), p("client_id"), s("client_secret")},
			"token (personal access token), or access_token (+ refresh_token, client_id, client_secret)"},
		"github": {"GitHub REST API", []credField{s("token"), s("access_token")},
			"token (personal access token) or access_token (OAuth)"},
		"gong": {"Gong API v2", []credField{p("access_key"), s("access_key_secret"), s("access_token"), s("refresh_token"), p("client_id"), s("client_secret"), p("api_base_url")},
			"access_key + access_key_secret, or access_token, or refresh_token + client_id + client_secret; api_base_url for the customer's host"},
		"google-drive": {"Google Drive API v3", []credField{s("access_token"), s("refresh_token"), p("client_id"), s("client_secret"), s("service_account_json"), p("subject")},
			"access_token (+ refresh_token, client_id, client_secret), or service_account_json (+ subject, the user a domain-wide delegation acts as)"},
		"hubspot": {"HubSpot CRM v3", []credField{s("private_app_token"), p("client_id"), s("client_secret"), s("refresh_token"), s("access_token")},
			"private_app_token, or client_id + client_secret + refresh_token"},
		"intercom": {"Intercom API 2.11", []credField{s("access_token"), p("region")},
			"access_token; region us, eu or au"},
		"jira": {"Jira Cloud REST API v3", []credField{p("site"), p("email"), s("api_token"), p("cloud_id"), s("access_token"), s("refresh_token"), p("client_id"), s("client_secret")},
			"site, email + api_token; or cloud_id + access_token (+ refresh_token, client_id, client_secret)"},
		"linear": {"Linear GraphQL API", []credField{s("api_key"), s("access_token"), s("refresh_token"), p("client_id"), s("client_secret")},
			"api_key (personal API key), or access_token (+ refresh_token, client_id, client_secret)"},
		"mailchimp": {"Mailchimp Marketing API 3.0", []credField{s("api_key"), s("access_token"), p("data_center")},
			"api_key (data centre from its suffix), or access_token + data_center"},
		"notion": {"Notion API 2025-09-03", []credField{s("token"), s("access_token"), s("refresh_token"), p("client_id"), s("client_secret"), p("workspace_id"), p("bot_id")},
			"token (an integration's secret), or access_token (+ refresh_token, client_id, client_secret)"},
		"salesforce": {"Salesforce REST API", []credField{p("client_id"), s("client_secret"), s("refresh_token"), s("access_token"), p("instance_url"), p("login_url"), {name: "sandbox", bool: true}},
			"client_id + client_secret + refresh_token; sandbox=true or login_url for the login host"},
		"slack": {"Slack Web API", []credField{s("token"), s("user_token"), p("team_id")},
			"token (bot xoxb- or user xoxp-); user_token (xoxp-) beside a bot token for api_search"},
		"stripe": {"Stripe API (2023-08-16)", []credField{s("api_key"), p("stripe_account"), p("stripe_user_id")},
			"api_key (secret sk_ or restricted rk_); stripe_account (acct_) to read a connected account"},
		"zendesk-support": {"Zendesk Support + Help Center", []credField{p("subdomain"), p("email"), s("api_token"), s("access_token"), s("refresh_token"), p("client_id"), s("client_secret")},
			"subdomain, and email + api_token, or access_token (+ refresh_token, client_id, client_secret)"},
	}
}

// envName is the environment variable that holds field of kind:
// TRIBUTARY_<KIND>_<FIELD>, upper case, dashes as underscores.
func envName(kind, field string) string {
	r := strings.NewReplacer("-", "_", ".", "_")
	return "TRIBUTARY_" + strings.ToUpper(r.Replace(kind)) + "_" + strings.ToUpper(r.Replace(field))
}

// credentials is a credentials object and where it came from.
type credentials struct {
	values map[string]any
	file   string // the --credentials file, "" for stdin or the environment
	from   string // a description for error messages
}

// loadCredentials reads the credentials of kind from the --credentials file
// ("-" for stdin), or else from the environment.
func (a *app) loadCredentials(kind, file string) (credentials, error) {
	if file != "" {
		var b []byte
		var err error
		if file == "-" {
			b, err = readAllLimit(a.stdin)
		} else {
			b, err = os.ReadFile(file)
		}
		if err != nil {
			return credentials{}, &tributary.Error{Kind: kind, Err: tributary.ErrInvalidCredentials, Message: "reading --credentials: " + err.Error()}
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil || m == nil {
			// The JSON error could quote the file's content: leave it out.
			return credentials{}, &tributary.Error{Kind: kind, Err: tributary.ErrInvalidCredentials, Message: "--credentials " + file + " is not a JSON object"}
		}
		c := credentials{values: m, from: "--credentials " + file}
		if file != "-" {
			c.file = file
		}
		return c, nil
	}
	info, ok := kindInfos()[kind]
	m := map[string]any{}
	if ok {
		for _, f := range info.fields {
			v, set := a.getenv(envName(kind, f.name))
			if !set || v == "" {
				continue
			}
			if f.bool {
				b, err := strconv.ParseBool(v)
				if err != nil {
					return credentials{}, &tributary.Error{Kind: kind, Err: tributary.ErrInvalidCredentials, Message: envName(kind, f.name) + " must be true or false"}
				}
				m[f.name] = b
				continue
			}
			m[f.name] = v
		}
	}
	return credentials{values: m, from: "the environment"}, nil
}

// credentialsHint explains where credentials come from, for an error about
// them.
func credentialsHint(kind string, c credentials) string {
	if len(c.values) == 0 && c.file == "" && c.from == "the environment" {
		return fmt.Sprintf("no credentials for %s: give --credentials file.json, set the %s variables ('tributary describe %s' lists them), or try --sandbox",
			kind, envName(kind, "*"), kind)
	}
	return "credentials from " + c.from
}

// saveRotatedToken writes a refreshed OAuth token back into the credentials
// file, so that the next run does not use a refresh token the vendor has
// already invalidated (Zendesk and Gong rotate them). Nothing is written
// unless the refresh token changed. It reports what it did on stderr, without
// the token.
func (a *app) saveRotatedToken(kind string, c credentials, tok *oauth2.Token) {
	if tok == nil || tok.RefreshToken == "" {
		return
	}
	if old, _ := c.values["refresh_token"].(string); old == tok.RefreshToken {
		return
	}
	if c.file == "" {
		fmt.Fprintf(a.stderr, "tributary: warning: %s rotated the refresh token; the one in %s no longer works (use --credentials FILE to have it saved)\n", kind, c.from)
		return
	}
	c.values["refresh_token"] = tok.RefreshToken
	if tok.AccessToken != "" {
		c.values["access_token"] = tok.AccessToken
	}
	if err := writeFileAtomic(c.file, c.values); err != nil {
		fmt.Fprintf(a.stderr, "tributary: warning: %s rotated the refresh token and saving it to %s failed: %v\n", kind, c.file, err)
		return
	}
	fmt.Fprintf(a.stderr, "tributary: %s rotated the refresh token; saved to %s\n", kind, c.file)
}

// writeFileAtomic replaces path with v as indented JSON, readable by the
// owner only, through a temporary file and a rename.
func writeFileAtomic(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
