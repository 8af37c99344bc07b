package gongtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Users created, retitled and deleted show in GET /v2/users and
// /v2/users/{id}, with totalRecords following.
func TestUserMutations(t *testing.T) {
	s := New(WithUsers(5))
	defer s.Close()
	get := func(path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.SetBasicAuth(DefaultAccessKey, DefaultAccessKeySecret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	ids := s.IDs("users")
	created, err := s.Create("users")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update("users", ids[1]); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete("users", ids[2]); err != nil {
		t.Fatal(err)
	}
	_, body := get("/v2/users")
	var page struct {
		Records struct{ TotalRecords int } `json:"records"`
		Users   []struct{ ID, Title, Created string }
	}
	if err := json.Unmarshal([]byte(body), &page); err != nil {
		t.Fatal(err)
	}
	if page.Records.TotalRecords != 5 || len(page.Users) != 5 {
		t.Fatalf("users after create and delete: total %d, %d listed", page.Records.TotalRecords, len(page.Users))
	}
	var listed []string
	for _, u := range page.Users {
		listed = append(listed, u.ID)
		if u.ID == ids[1] && !strings.Contains(u.Title, "(updated 1)") {
			t.Errorf("updated user's title %q", u.Title)
		}
	}
	if strings.Contains(strings.Join(listed, ","), ids[2]) || listed[4] != created {
		t.Errorf("listed %v", listed)
	}
	if status, _ := get("/v2/users/" + ids[2]); status != 404 {
		t.Errorf("get of a deleted user: %d", status)
	}
	if status, _ := get("/v2/users/" + created); status != 200 {
		t.Errorf("get of a created user: %d", status)
	}
}
