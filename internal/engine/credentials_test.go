package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tributary-dev/tributary"
	"github.com/tributary-dev/tributary/internal/engine"
)

// KeyOrOAuth takes a key alone or OAuth tokens alone, refresh tokens with
// their client; every refusal matches ErrInvalidCredentials, says what to
// give and never shows a value.
func TestKeyOrOAuth(t *testing.T) {
	for _, c := range []struct {
		key  string
		tok  engine.Tokens
		want string // "" when accepted
	}{
		{key: "SECRET-KEY"},
		{tok: engine.Tokens{AccessToken: "SECRET-AT"}},
		{tok: engine.Tokens{RefreshToken: "SECRET-RT", ClientID: "id", ClientSecret: "SECRET-CS"}},
		{want: "give token (a personal access token), or an OAuth access_token"},
		{key: "SECRET-KEY", tok: engine.Tokens{AccessToken: "SECRET-AT"}, want: "give either token or the OAuth fields"},
		{tok: engine.Tokens{ClientID: "id", ClientSecret: "SECRET-CS"}, want: "OAuth needs access_token, or refresh_token"},
		{tok: engine.Tokens{AccessToken: "SECRET-AT", RefreshToken: "SECRET-RT"}, want: "refreshing an OAuth token needs client_id and client_secret"},
	} {
		err := engine.KeyOrOAuth("acme", "token", "a personal access token", c.key, c.tok)
		if c.want == "" {
			if err != nil {
				t.Errorf("%+v: %v", c, err)
			}
			continue
		}
		if !errors.Is(err, tributary.ErrInvalidCredentials) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%+v: %v, want ErrInvalidCredentials saying %q and no secret", c, err, c.want)
		}
	}
}
