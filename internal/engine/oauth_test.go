package engine

import (
	"testing"

	"github.com/tributary-dev/tributary"
)

func TestTokenURL(t *testing.T) {
	const app = "https://auth.atlassian.com/oauth/token"
	for _, c := range []struct {
		opts []tributary.Option
		want string
	}{
		{nil, app},
		{[]tributary.Option{tributary.WithBaseURL("http://127.0.0.1:9/")}, "http://127.0.0.1:9/oauth/token"},
		{[]tributary.Option{tributary.WithBaseURL("http://127.0.0.1:9/prefix")}, "http://127.0.0.1:9/prefix/oauth/token"},
		{[]tributary.Option{tributary.WithBaseURL("http://127.0.0.1:9"), tributary.WithTokenURL("https://proxy.example.com/t")}, "https://proxy.example.com/t"},
	} {
		if got := TokenURL(tributary.NewOptions(c.opts...), app); got != c.want {
			t.Errorf("%v: %s, want %s", c.opts, got, c.want)
		}
	}
}
