package tributary_test

import (
	"testing"

	"github.com/tributary-dev/tributary"
)

// A clone shares nothing with its original: changing an input's choices
// or what a choice fills changes only the clone.
func TestOAuthAppCloneIsDeep(t *testing.T) {
	a := tributary.OAuthApp{Inputs: []tributary.OAuthInput{{Name: "region",
		Choices: []tributary.OAuthChoice{{Value: "eu", Fill: map[string]string{"api_origin": "https://api.eu.example"}}}}}}
	c := a.Clone()
	c.Inputs[0].Choices[0].Value = "au"
	c.Inputs[0].Choices[0].Fill["api_origin"] = "https://evil.example"
	if got := a.Inputs[0].Choices[0]; got.Value != "eu" || got.Fill["api_origin"] != "https://api.eu.example" {
		t.Errorf("the original changed with its clone: %+v", got)
	}
	if got := a.Inputs[0].ChoiceValues(); len(got) != 1 || got[0] != "eu" {
		t.Errorf("ChoiceValues = %q", got)
	}
}
