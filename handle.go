package tributary

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"strings"
	"time"

	"github.com/tributary-dev/tributary/pagination"
)

// Handle is a typed view of one entity of a connector: records decoded into
// T, list params given as a P struct (or Params). It is the thin typed
// layer every kind builds its entity handles on; requests, paging and
// errors are those of the connector's generic methods.
type Handle[T any, P any] struct {
	Conn   Connector
	Entity string
}

// List reads one page.
func (h Handle[T, P]) List(ctx context.Context, p P) (*pagination.Page[T], error) {
	params, err := EncodeParams(p)
	if err != nil {
		return nil, h.paramErr(ActionList, err)
	}
	page, err := h.Conn.List(ctx, h.Entity, params)
	if err != nil {
		return nil, err
	}
	return decodePage[T](h, ActionList, page)
}

// Pager returns a pager that starts at p.
func (h Handle[T, P]) Pager(p P) *pagination.Pager[T] {
	params, perr := EncodeParams(p)
	return pagination.New(map[string]any(params), func(ctx context.Context, params map[string]any) (*pagination.Page[T], error) {
		if perr != nil {
			return nil, h.paramErr(ActionList, perr)
		}
		page, err := h.Conn.List(ctx, h.Entity, Params(params))
		if err != nil {
			return nil, err
		}
		return decodePage[T](h, ActionList, page)
	})
}

// All yields every record from p on, decoded, using the connector's best
// walk (see All).
func (h Handle[T, P]) All(ctx context.Context, p P) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		params, err := EncodeParams(p)
		if err != nil {
			yield(zero, h.paramErr(ActionList, err))
			return
		}
		// One decoding target for the walk: a fresh one per record would
		// escape to the heap, an allocation per record. It is reset
		// before each record, so what was yielded shares nothing with it.
		v := new(T)
		for rec, err := range All(ctx, h.Conn, h.Entity, params) {
			if err != nil {
				yield(zero, err)
				return
			}
			*v = zero
			if err := rec.Decode(v); err != nil {
				yield(zero, h.decodeErr(ActionList, err))
				return
			}
			if !yield(*v, nil) {
				return
			}
		}
	}
}

// Get reads one record with the given get params.
func (h Handle[T, P]) Get(ctx context.Context, p Params) (T, error) {
	var v T
	rec, err := h.Conn.Get(ctx, h.Entity, p)
	if err != nil {
		return v, err
	}
	if err := rec.Decode(&v); err != nil {
		return v, h.decodeErr(ActionGet, err)
	}
	return v, nil
}

// GetID reads the record whose get param "id" is id (the get of most
// entities: Get with Params{"id": id}).
func (h Handle[T, P]) GetID(ctx context.Context, id string) (T, error) {
	return h.Get(ctx, Params{"id": id})
}

// APISearch reads one page of the entity's api_search (the source's own
// search), with p a params struct (as EncodeParams reads it) or Params.
func (h Handle[T, P]) APISearch(ctx context.Context, p any) (*pagination.Page[T], error) {
	params, err := EncodeParams(p)
	if err != nil {
		return nil, h.paramErr(ActionAPISearch, err)
	}
	page, err := h.Conn.APISearch(ctx, h.Entity, params)
	if err != nil {
		return nil, err
	}
	return decodePage[T](h, ActionAPISearch, page)
}

// APISearchAll yields every record the entity's api_search finds from p
// on, decoded, following each page's Next.
func (h Handle[T, P]) APISearchAll(ctx context.Context, p any) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		params, err := EncodeParams(p)
		if err != nil {
			yield(zero, h.paramErr(ActionAPISearch, err))
			return
		}
		pg := pagination.New(map[string]any(params), func(ctx context.Context, params map[string]any) (*pagination.Page[T], error) {
			return h.APISearch(ctx, Params(params))
		})
		for v, err := range pg.All(ctx) {
			if !yield(v, err) || err != nil {
				return
			}
		}
	}
}

func decodePage[T, P any](h Handle[T, P], a Action, page *Page) (*pagination.Page[T], error) {
	items := make([]T, len(page.Records))
	for i, r := range page.Records {
		if err := r.Decode(&items[i]); err != nil {
			return nil, h.decodeErr(a, err)
		}
	}
	return &pagination.Page[T]{Items: items, Meta: page.Meta, Next: page.Next}, nil
}

func (h Handle[T, P]) decodeErr(a Action, err error) error {
	return &Error{Kind: h.Conn.Type(), Entity: h.Entity, Action: a, Err: ErrUnexpectedResponse, Message: "expected a record that decodes into " + reflect.TypeFor[T]().String() + ", got: " + err.Error(), Cause: err}
}

func (h Handle[T, P]) paramErr(a Action, err error) error {
	return &Error{Kind: h.Conn.Type(), Entity: h.Entity, Action: a, Err: ErrInvalidParams, Message: err.Error()}
}

// EncodeParams turns a params struct into Params. Each exported field with
// a `param:"name"` tag becomes that parameter; fields whose value is the
// zero value (nil pointers, "", 0, false, empty slices) are left out, so
// use pointers where a zero must be sent. A Params or map[string]any is
// returned as is; nil gives nil.
func EncodeParams(v any) (Params, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case Params:
		return x, nil
	case map[string]any:
		return Params(x), nil
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil, nil
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return nil, fmt.Errorf("params must be a struct or Params, not %T", v)
	}
	out := Params{}
	if err := encodeStruct(rv, out); err != nil {
		return nil, err
	}
	return out, nil
}

// encodeStruct adds the tagged fields of the struct rv to out; embedded
// structs without a tag are flattened.
func encodeStruct(rv reflect.Value, out Params) error {
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		tag, ok := f.Tag.Lookup("param")
		if !ok && f.Anonymous && f.Type.Kind() == reflect.Struct {
			if err := encodeStruct(rv.Field(i), out); err != nil {
				return err
			}
			continue
		}
		if !ok || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if name == "" || name == "-" {
			continue
		}
		fv := rv.Field(i)
		if fv.IsZero() {
			continue
		}
		for fv.Kind() == reflect.Pointer {
			fv = fv.Elem()
		}
		if t, ok := fv.Interface().(time.Time); ok {
			out[name] = t.UTC().Format(time.RFC3339)
			continue
		}
		switch fv.Kind() {
		case reflect.Struct:
			sub, err := EncodeParams(fv.Interface())
			if err != nil {
				return err
			}
			out[name] = map[string]any(sub)
		case reflect.String:
			out[name] = fv.String() // named string types (enums) as plain strings
		default:
			out[name] = fv.Interface()
		}
	}
	return nil
}
