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
//
// Its methods are typed shells over the untyped ones of entityOf, so that
// what is compiled again for each record type (every kind has tens) is
// the least that touches T; they are kept out of line (go:noinline), since
// each inlined copy (into the *Handle method wrappers, into a kind's own
// typed handles) is compiled again too. A method call per page or per walk
// costs nothing beside the request.
type Handle[T any, P any] struct {
	Conn   Connector
	Entity string
}

// entityOf is a Handle without its types: the requests, walks and errors
// of every Handle.
type entityOf struct {
	conn   Connector
	entity string
}

func (h Handle[T, P]) untyped() entityOf { return entityOf{h.Conn, h.Entity} }

// List reads one page.
//
//go:noinline
func (h Handle[T, P]) List(ctx context.Context, p P) (*pagination.Page[T], error) {
	e := h.untyped()
	page, err := e.page(ctx, ActionList, p)
	return decodePage[T](e, ActionList, page, err)
}

// Pager returns a pager that starts at p.
//
//go:noinline
func (h Handle[T, P]) Pager(p P) *pagination.Pager[T] {
	params, perr := EncodeParams(p)
	e := h.untyped()
	return pagination.New(map[string]any(params), func(ctx context.Context, params map[string]any) (*pagination.Page[T], error) {
		if perr != nil {
			return nil, e.paramErr(ActionList, perr)
		}
		page, err := e.page(ctx, ActionList, Params(params))
		return decodePage[T](e, ActionList, page, err)
	})
}

// All yields every record from p on, decoded, using the connector's best
// walk (see All).
//
//go:noinline
func (h Handle[T, P]) All(ctx context.Context, p P) iter.Seq2[T, error] {
	return decodeAll[T](ctx, h.untyped(), ActionList, p)
}

// Get reads one record with the given get params.
//
//go:noinline
func (h Handle[T, P]) Get(ctx context.Context, p Params) (T, error) {
	var v T
	err := h.untyped().get(ctx, p, &v)
	return v, err
}

// GetID reads the record whose get param "id" is id (the get of most
// entities: Get with Params{"id": id}).
//
//go:noinline
func (h Handle[T, P]) GetID(ctx context.Context, id string) (T, error) {
	return h.Get(ctx, Params{"id": id})
}

// APISearch reads one page of the entity's api_search (the source's own
// search), with p a params struct (as EncodeParams reads it) or Params.
//
//go:noinline
func (h Handle[T, P]) APISearch(ctx context.Context, p any) (*pagination.Page[T], error) {
	e := h.untyped()
	page, err := e.page(ctx, ActionAPISearch, p)
	return decodePage[T](e, ActionAPISearch, page, err)
}

// APISearchAll yields every record the entity's api_search finds from p
// on, decoded, following each page's Next.
//
//go:noinline
func (h Handle[T, P]) APISearchAll(ctx context.Context, p any) iter.Seq2[T, error] {
	return decodeAll[T](ctx, h.untyped(), ActionAPISearch, p)
}

// decodeAll yields the records of e's walk for action a from p on, each
// decoded into a T.
//
//go:noinline
func decodeAll[T any](ctx context.Context, e entityOf, a Action, p any) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		// One decoding target for the walk: a fresh one per record would
		// escape to the heap, an allocation per record. It is reset
		// after each record, so what was yielded shares nothing with it.
		v := new(T)
		if err := e.walk(ctx, a, p, v, func() bool {
			ok := yield(*v, nil)
			*v = zero
			return ok
		}); err != nil {
			yield(zero, err)
		}
	}
}

// decodePage decodes a page's records into T.
//
//go:noinline
func decodePage[T any](e entityOf, a Action, page *Page, err error) (*pagination.Page[T], error) {
	if err != nil {
		return nil, err
	}
	items := make([]T, len(page.Records))
	for i, r := range page.Records {
		if err := r.Decode(&items[i]); err != nil {
			return nil, e.decodeErr(a, &items[i], err)
		}
	}
	return &pagination.Page[T]{Items: items, Meta: page.Meta, Next: page.Next}, nil
}

// page reads one page of action a (list or api_search) with params p.
func (e entityOf) page(ctx context.Context, a Action, p any) (*Page, error) {
	params, err := EncodeParams(p)
	if err != nil {
		return nil, e.paramErr(a, err)
	}
	if a == ActionAPISearch {
		return e.conn.APISearch(ctx, e.entity, params)
	}
	return e.conn.List(ctx, e.entity, params)
}

// get reads one record and decodes it into v.
func (e entityOf) get(ctx context.Context, p Params, v any) error {
	rec, err := e.conn.Get(ctx, e.entity, p)
	if err != nil {
		return err
	}
	if err := rec.Decode(v); err != nil {
		return e.decodeErr(ActionGet, v, err)
	}
	return nil
}

// walk decodes each record of action a's walk from p on into v and calls
// emit, until emit returns false; list walks take the connector's best
// walk (see All), api_search walks follow each page's Next.
func (e entityOf) walk(ctx context.Context, a Action, p any, v any, emit func() bool) error {
	params, err := EncodeParams(p)
	if err != nil {
		return e.paramErr(a, err)
	}
	records := All(ctx, e.conn, e.entity, params)
	if a == ActionAPISearch {
		records = pagination.New(map[string]any(params), func(ctx context.Context, params map[string]any) (*pagination.Page[Record], error) {
			page, err := e.page(ctx, a, Params(params))
			if err != nil {
				return nil, err
			}
			return &pagination.Page[Record]{Items: page.Records, Meta: page.Meta, Next: map[string]any(page.Next)}, nil
		}).All(ctx)
	}
	for rec, err := range records {
		if err != nil {
			return err
		}
		if err := rec.Decode(v); err != nil {
			return e.decodeErr(a, v, err)
		}
		if !emit() {
			return nil
		}
	}
	return nil
}

// decodeErr is the error of a record that does not decode into *v.
func (e entityOf) decodeErr(a Action, v any, err error) error {
	return &Error{Kind: e.conn.Type(), Entity: e.entity, Action: a, Err: ErrUnexpectedResponse, Message: "expected a record that decodes into " + reflect.TypeOf(v).Elem().String() + ", got: " + err.Error(), Cause: err}
}

func (e entityOf) paramErr(a Action, err error) error {
	return &Error{Kind: e.conn.Type(), Entity: e.entity, Action: a, Err: ErrInvalidParams, Message: err.Error()}
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
