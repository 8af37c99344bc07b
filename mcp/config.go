package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/kinds"
)

// Config is the server's configuration file, in YAML or JSON (YAML is a
// superset of JSON, so one decoder reads both):
//
//	connectors:
//	  - name: support                  # the name agents use
//	    type: zendesk-support
//	    credentials:
//	      subdomain: acme              # a literal, for what is not secret
//	      email: agent@acme.com
//	      api_token: {env: ZENDESK_API_TOKEN}   # or {file: /run/secrets/zendesk}
//	    search:                        # entities the store keeps for `search`, with their list params
//	      tickets: {}
//	  - name: crm
//	    type: hubspot
//	    hosted:
//	      base_url: https://connectors.example.com
//	      connector_id: 3f1c0c9e
//	      token: {env: TRIBUTARY_HOSTED_TOKEN}
//	store: {type: memory}
//	downloads: {dir: ./downloads, max_bytes: 104857600, inline_bytes: 16384}
//	limits: {records: 25, bytes: 32768, schema_bytes: 98304}
//
// Unknown keys are errors, so a misspelt key is reported rather than
// ignored.
type Config struct {
	// Connectors are the connectors the server offers, by name.
	Connectors []ConnectorConfig `yaml:"connectors"`
	// Store, when set, gives direct-mode connectors the `search` action.
	Store *StoreConfig `yaml:"store"`
	// Downloads configures the download tool.
	Downloads Downloads `yaml:"downloads"`
	// Limits sizes the answers.
	Limits Limits `yaml:"limits"`
	// HTTP configures the streamable HTTP transport.
	HTTP HTTPConfig `yaml:"http"`
}

// ConnectorConfig is one connector of the configuration: direct mode
// (Credentials) or hosted mode (Hosted).
type ConnectorConfig struct {
	// Name is the name agents pass as "connector".
	Name string `yaml:"name"`
	// Type is the connector_type ("zendesk-support", "github", ...).
	Type string `yaml:"type"`
	// Credentials is the kind's credentials object (direct mode); each
	// value is a literal, {env: NAME} or {file: PATH}.
	Credentials map[string]Value `yaml:"credentials"`
	// BaseURL replaces the vendor's origin in direct mode (an enterprise
	// host, a proxy, a fake).
	BaseURL string `yaml:"base_url"`
	// Hosted runs the connector through the hosted service instead.
	Hosted *HostedConfig `yaml:"hosted"`
	// Search lists the entities the store keeps for `search`, each with the
	// list params its copy is walked with (for example a SOQL query).
	// Entities not named here are synchronized on their first search with
	// the params of their catalogue's copy scope (tributary.Scope: every
	// Salesforce record with every searchable field), or with none.
	Search map[string]tributary.Params `yaml:"search"`
	// ReplicationConfig is the connector's replication_config: what its
	// copies cover (GitHub's repositories, a start date), checked against
	// the keys its kind declares ('tributary describe TYPE' lists them).
	ReplicationConfig map[string]any `yaml:"replication_config"`

	replication map[string]any // ReplicationConfig in normal form, set by check
}

// HostedConfig reaches a connector through the hosted service
// (hosted.Config).
type HostedConfig struct {
	// BaseURL is the service's base URL.
	BaseURL string `yaml:"base_url"`
	// ConnectorID is the connector's id on the service.
	ConnectorID string `yaml:"connector_id"`
	// Token is a bearer token for the service; or give ClientID and
	// ClientSecret.
	Token Value `yaml:"token"`
	// ClientID and ClientSecret are exchanged for a token by the hosted
	// client.
	ClientID Value `yaml:"client_id"`
	// ClientSecret goes with ClientID.
	ClientSecret Value `yaml:"client_secret"`
	// Paths selects the service's path set: "default" or "integrations".
	Paths string `yaml:"paths"`
}

// StoreConfig chooses where `search` runs in direct mode.
type StoreConfig struct {
	// Type is "memory" (an in-memory replica of each searched entity,
	// synchronized on its first search and gone with the server),
	// "sqlite" (a durable copy in the file Path) or "postgres" (a durable
	// copy in the database DSN, shared by many processes). A durable copy
	// is synchronized on its first search, or beforehand with
	// `tributary sync --store`.
	Type string `yaml:"type"`
	// Path is the SQLite file.
	Path string `yaml:"path"`
	// DSN is the PostgreSQL connection string, best from the environment
	// or a file ({env: TRIBUTARY_STORE_DSN}) since it holds a password.
	DSN Value `yaml:"dsn"`
}

// Downloads configures the download tool.
type Downloads struct {
	// Dir is where files are written; without it the download tool
	// refuses.
	Dir string `yaml:"dir"`
	// MaxBytes is the largest file written (default DefaultMaxDownload).
	MaxBytes int64 `yaml:"max_bytes"`
	// InlineBytes is the largest text file also returned inline (default
	// DefaultInlineBytes; a negative value never inlines).
	InlineBytes int64 `yaml:"inline_bytes"`
}

// Limits sizes the answers of execute.
type Limits struct {
	// Records is the default record limit of one answer (DefaultRecords);
	// a call may ask for up to MaxRecords.
	Records int `yaml:"records"`
	// Bytes caps the JSON of one answer's records (DefaultBytes).
	Bytes int `yaml:"bytes"`
	// SchemaBytes bounds the per-parameter part of each tool's input
	// schema (Options.SchemaBytes).
	SchemaBytes int `yaml:"schema_bytes"`
}

// HTTPConfig configures the streamable HTTP transport.
type HTTPConfig struct {
	// Token is the bearer token clients must send; the environment
	// variable TRIBUTARY_MCP_TOKEN is used when it is not set.
	Token Value `yaml:"token"`
}

// Value is a configuration value that may be a secret: a literal, or
// {env: NAME} (an environment variable), or {file: PATH} (a file's
// content, without a trailing newline). Printing a Value never shows a
// literal.
type Value struct {
	literal any
	env     string
	file    string
	set     bool
}

// Env returns a Value read from the environment variable name.
func Env(name string) Value { return Value{env: name, set: true} }

// Literal returns a Value that is v itself.
func Literal(v any) Value { return Value{literal: v, set: true} }

// IsSet reports whether the configuration gave the value.
func (v Value) IsSet() bool { return v.set }

// UnmarshalYAML reads a scalar as a literal and {env: NAME} or
// {file: PATH} as a reference.
func (v *Value) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		var x any
		if err := n.Decode(&x); err != nil {
			return fmt.Errorf("line %d: not a value", n.Line)
		}
		*v = Value{literal: x, set: x != nil}
		return nil
	case yaml.MappingNode:
		var ref struct {
			Env  string `yaml:"env"`
			File string `yaml:"file"`
		}
		dec := n.Decode
		if err := dec(&ref); err != nil {
			return fmt.Errorf("line %d: a value is a literal, {env: NAME} or {file: PATH}", n.Line)
		}
		if (ref.Env == "") == (ref.File == "") {
			return fmt.Errorf("line %d: a value is a literal, {env: NAME} or {file: PATH}", n.Line)
		}
		*v = Value{env: ref.Env, file: ref.File, set: true}
		return nil
	}
	return fmt.Errorf("line %d: a value is a literal, {env: NAME} or {file: PATH}", n.Line)
}

// Format prints where the value comes from, never a literal.
func (v Value) Format(f fmt.State, _ rune) {
	switch {
	case v.env != "":
		fmt.Fprintf(f, "{env: %s}", v.env)
	case v.file != "":
		fmt.Fprintf(f, "{file: %s}", v.file)
	case v.set:
		fmt.Fprint(f, "[REDACTED]")
	default:
		fmt.Fprint(f, "(unset)")
	}
}

// Resolve returns the value: the literal, the environment variable's
// value (getenv) or the file's content. Errors name the variable or the
// file, never a value.
func (v Value) Resolve(getenv func(string) (string, bool)) (any, error) {
	switch {
	case v.env != "":
		s, ok := getenv(v.env)
		if !ok || s == "" {
			return nil, fmt.Errorf("environment variable %s is not set", v.env)
		}
		return s, nil
	case v.file != "":
		b, err := os.ReadFile(v.file)
		if err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("reading %s: %v", v.file, err)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	return v.literal, nil
}

// resolveString resolves a value that must be a string.
func (v Value) resolveString(getenv func(string) (string, bool)) (string, error) {
	if !v.set {
		return "", nil
	}
	x, err := v.Resolve(getenv)
	if err != nil {
		return "", err
	}
	s, ok := x.(string)
	if !ok {
		return "", errors.New("must be a string")
	}
	return s, nil
}

// ErrConfig is matched by every error in a configuration.
var ErrConfig = errors.New("mcp: configuration")

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
}

// quoted matches what a YAML error quotes of the document, which could be
// a secret written in the wrong place.
var quoted = regexp.MustCompile("`[^`]*`")

// ParseConfig reads a configuration in YAML or JSON. Errors give the line,
// never a value of the file.
func ParseConfig(data []byte) (*Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, configErr("the file is empty")
		}
		msg := quoted.ReplaceAllString(err.Error(), "(value)")
		msg = strings.ReplaceAll(strings.ReplaceAll(msg, "unmarshal errors:\n  ", ""), "\n  ", "; ")
		return nil, configErr("%s", msg)
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return &c, nil
}

// LoadConfig reads the configuration file at path.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, configErr("reading %s: %v", path, err)
	}
	return ParseConfig(b)
}

// check reports what is wrong with the configuration as a whole.
func (c *Config) check() error {
	if len(c.Connectors) == 0 {
		return configErr("no connectors: add at least one under connectors")
	}
	seen := map[string]bool{}
	for i, cc := range c.Connectors {
		switch {
		case cc.Name == "":
			return configErr("connectors[%d]: name is required", i)
		case !validName(cc.Name):
			return configErr("connectors[%d]: name %q: use letters, digits, '-' and '_'", i, cc.Name)
		case seen[cc.Name]:
			return configErr("connectors[%d]: name %q is used twice", i, cc.Name)
		case cc.Type == "":
			return configErr("connector %q: type is required", cc.Name)
		case cc.Hosted != nil && (len(cc.Credentials) > 0 || cc.BaseURL != ""):
			return configErr("connector %q: give credentials (direct mode) or hosted, not both", cc.Name)
		case cc.Hosted != nil && (cc.Hosted.BaseURL == "" || cc.Hosted.ConnectorID == ""):
			return configErr("connector %q: hosted needs base_url and connector_id", cc.Name)
		case cc.Hosted != nil && cc.ReplicationConfig != nil:
			return configErr("connector %q: replication_config is the hosted service's, given when the connector was created there", cc.Name)
		}
		if cc.Hosted == nil && cc.ReplicationConfig != nil {
			norm, err := kinds.NormalizeReplicationConfig(cc.Type, cc.ReplicationConfig)
			if err != nil {
				return configErr("connector %q: %v", cc.Name, err)
			}
			c.Connectors[i].replication = norm
		}
		seen[cc.Name] = true
	}
	if c.Limits.Records < 0 || c.Limits.Records > MaxRecords {
		return configErr("limits.records must be between 1 and %d", MaxRecords)
	}
	if c.Limits.Bytes < 0 || c.Limits.SchemaBytes < 0 {
		return configErr("limits.bytes and limits.schema_bytes must be positive")
	}
	if c.Downloads.MaxBytes < 0 {
		return configErr("downloads.max_bytes must be positive")
	}
	return nil
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

func validName(s string) bool { return nameRE.MatchString(s) }
