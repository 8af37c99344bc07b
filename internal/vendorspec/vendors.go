package vendorspec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// vendor says where a vendor's description is and how requests reach it.
type vendor struct {
	// file is the description, under testdata/vendor-specs/.
	file string
	// graphql marks a GraphQL SDL schema; the rest is for OpenAPI.
	graphql bool
	// endpoint is a GraphQL API's one URL.
	endpoint string
	// bases are the URLs of the API's root, "{name}" standing for one
	// host label or path segment; empty: the description's own servers
	// (OpenAPI 3) or host and basePath (Swagger 2.0).
	bases []string
	// errorSchema is the JSON pointer of the schema every error answer of
	// the vendor has, used for an error status an operation does not
	// declare; empty: such a body is not checked (and the test says so).
	errorSchema string
	// slashTails are the path templates whose last parameter may hold
	// slashes, tried when no template matches otherwise (GitHub's
	// /repos/{owner}/{repo}/contents/{path}: {path} is a file's path).
	slashTails []string
	// patches fix the vendor's documented defects in the parsed copy.
	patches []patch
}

// vendors are the descriptions in testdata/vendor-specs (SOURCES.md says
// where each comes from).
var vendors = map[string]vendor{
	"github": {
		file:        "github/api.github.com.json",
		errorSchema: "#/components/schemas/basic-error",
		slashTails:  []string{"/repos/{owner}/{repo}/contents/{path}"},
		patches:     githubPatches,
	},
	"intercom": {
		file:        "intercom/api.intercom.io.yaml",
		errorSchema: "#/components/schemas/error",
		patches:     intercomPatches,
	},
	"jira": {
		file: "jira/swagger-v3.v3.json",
		// Basic auth reaches https://{site}.atlassian.net; OAuth 2.0 (3LO)
		// reaches the same API through api.atlassian.com with the site's
		// cloud id. The description's server is a placeholder
		// (https://your-domain.atlassian.net).
		bases:       []string{"https://{site}.atlassian.net", "https://api.atlassian.com/ex/jira/{cloudid}"},
		errorSchema: "#/components/schemas/ErrorCollection",
		patches:     jiraPatches,
	},
	"linear": {
		file:     "linear/schema.graphql",
		graphql:  true,
		endpoint: "https://api.linear.app/graphql",
	},
	"slack":        {file: "slack/slack_web_openapi_v2.json", patches: slackPatches},
	"stripe":       {file: "stripe/spec3.yaml"},
	"google-drive": {file: "google-drive/google_drive_v3.oas.json"},
	"notion":       {file: "notion/notion-openapi.json"},
	"asana":        {file: "asana/asana_oas.yaml", patches: asanaPatches},
}

// Vendors lists the vendors whose descriptions the package knows, sorted.
func Vendors() []string {
	out := make([]string, 0, len(vendors))
	for v := range vendors {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// specDir finds testdata/vendor-specs from the working directory of the
// test (a package directory of the module) by walking up to go.mod.
func specDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "testdata", "vendor-specs"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("vendorspec: no go.mod above the working directory")
		}
		dir = parent
	}
}

// cache holds each description parsed once per test binary: they are
// large (GitHub's is 3.6 MB) and every test of a binary reads the same.
var cache sync.Map // vendor name -> *cached

type cached struct {
	once sync.Once
	val  any // *Description or *Schema
	err  error
	took time.Duration
}

// load returns the vendor's parsed description, parsing it on first use.
func load(name string, wantGraphQL bool) (any, time.Duration, error) {
	v, ok := vendors[name]
	if !ok {
		return nil, 0, fmt.Errorf("vendorspec: no description for %q (known: %s)", name, strings.Join(Vendors(), ", "))
	}
	if v.graphql != wantGraphQL {
		kind := "an OpenAPI description"
		if v.graphql {
			kind = "a GraphQL schema"
		}
		return nil, 0, fmt.Errorf("vendorspec: %s has %s", name, kind)
	}
	e, _ := cache.LoadOrStore(name, &cached{})
	c := e.(*cached)
	c.once.Do(func() {
		start := time.Now()
		dir, err := specDir()
		if err != nil {
			c.err = err
			return
		}
		path := filepath.Join(dir, filepath.FromSlash(v.file))
		if v.graphql {
			c.val, c.err = loadGraphQL(name, v, path)
		} else {
			c.val, c.err = loadOpenAPI(name, v, path)
		}
		c.took = time.Since(start)
	})
	return c.val, c.took, c.err
}

// OpenAPI returns the vendor's OpenAPI (or Swagger 2.0) description,
// parsed once per test binary; it fails t if there is none or it cannot be
// read.
func OpenAPI(t testing.TB, name string) *Description {
	t.Helper()
	return open[*Description](t, name, false)
}

// GraphQL returns the vendor's GraphQL schema, parsed once per test
// binary; it fails t if there is none or it cannot be read.
func GraphQL(t testing.TB, name string) *Schema {
	t.Helper()
	return open[*Schema](t, name, true)
}

func open[T any](t testing.TB, name string, graphql bool) T {
	t.Helper()
	v, took, err := load(name, graphql)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("vendorspec: %s's description parsed in %v (once per test binary)", name, took.Round(time.Millisecond))
	return v.(T)
}
