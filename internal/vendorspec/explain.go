package vendorspec

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// explain turns kin-openapi's validation errors into one line each:
// "<prefix> body: /0/user/login: value must be a string, got null".
func explain(prefix string, err error) []string {
	var out []string
	var walk func(prefix string, err error)
	walk = func(prefix string, err error) {
		switch e := err.(type) {
		case openapi3.MultiError:
			for _, x := range e {
				walk(prefix, x)
			}
		case *openapi3filter.RequestError:
			p := prefix + ": request"
			switch {
			case e.Parameter != nil:
				p = fmt.Sprintf("%s %s parameter %s", p, e.Parameter.In, e.Parameter.Name)
			case e.RequestBody != nil:
				p += " body"
			}
			if e.Err == nil {
				out = append(out, p+": "+e.Reason)
				return
			}
			if !isSchemaErr(e.Err) && e.Reason != "" {
				p += ": " + e.Reason
			}
			walk(p, e.Err)
		case *openapi3filter.ResponseError:
			p := prefix
			switch {
			case strings.HasPrefix(e.Reason, "response body doesn't match"):
				p += " body"
			case e.Reason != "":
				p += ": " + e.Reason
			}
			if e.Err == nil {
				out = append(out, p)
				return
			}
			walk(p, e.Err)
		case *openapi3.SchemaError:
			line := fmt.Sprintf("%s: /%s: %s", prefix, strings.Join(e.JSONPointer(), "/"), schemaReason(e))
			var alts openapi3.MultiError
			if e.Origin != nil && errors.As(e.Origin, &alts) {
				var sub []string
				for _, a := range alts {
					for _, s := range explain("", a) {
						sub = append(sub, strings.TrimPrefix(s, ": "))
					}
				}
				line += " [" + strings.Join(sub, "; or ") + "]"
			}
			out = append(out, line)
		default:
			out = append(out, fmt.Sprintf("%s: %s", prefix, firstLine(err.Error())))
		}
	}
	walk(prefix, err)
	return out
}

// isSchemaErr reports whether err is a schema's verdict (which names
// what is wrong better than the reason around it).
func isSchemaErr(err error) bool {
	switch err.(type) {
	case openapi3.MultiError, *openapi3.SchemaError:
		return true
	}
	return false
}

var mustBe = regexp.MustCompile(`^value must be an? (\w+)$`)

// schemaReason is the reason with the value that failed, short:
// "expected string, got null".
func schemaReason(e *openapi3.SchemaError) string {
	r := e.Reason
	switch m := mustBe.FindStringSubmatch(r); {
	case m != nil:
		return "expected " + m[1] + ", got " + short(e.Value)
	case r == "Value is not nullable":
		want := "a value"
		if e.Schema != nil && e.Schema.Type != nil && len(e.Schema.Type.Slice()) > 0 {
			want = strings.Join(e.Schema.Type.Slice(), " or ")
		}
		return "expected " + want + " (not nullable), got null"
	case r == "":
		r = fmt.Sprintf("does not match the schema's %q", e.SchemaField)
	case strings.HasPrefix(r, "property "): // "property \"x\" is missing": the value is the object
		return r
	}
	return r + ", got " + short(e.Value)
}

// short renders a JSON value in at most 60 characters.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
