package asanatest_test

import (
	"net/http"
	"testing"

	"github.com/tributary-dev/tributary/kinds/asana/asanatest"
)

// Deleting a project deletes the tasks only in it and their subtasks, as
// Asana does; the other projects' tasks stay.
func TestDeleteProjectDeletesItsTasks(t *testing.T) {
	s := asanatest.New(asanatest.WithProjects(2), asanatest.WithTasks(8))
	defer s.Close()
	status := func(path string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+asanatest.DefaultToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	// Tasks go in turn to each project: task 0 and 2 in the first, 1 in
	// the second; the second task of the first project (2) has a subtask
	// (3).
	if err := s.Delete("projects", asanatest.GID("project", 0)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what string
		i    int
		want int
	}{{"task", 0, 404}, {"task", 2, 404}, {"its subtask", 3, 404}, {"the other project's task", 1, 200}} {
		if got := status("/tasks/" + asanatest.GID("task", c.i)); got != c.want {
			t.Errorf("%s %d after the project's deletion: %d, want %d", c.what, c.i, got, c.want)
		}
	}
}
