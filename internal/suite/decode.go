package suite

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/conform-kit/conform/internal/canon"
)

// fromValue stores v, a JSON value as [canon.Parse] returns it (nil, bool,
// json.Number, string, []any, map[string]any), in the Go value dst points
// to, the way encoding/json's Decoder (with UseNumber) stores the same
// text for the types the vector files use: structs by their json tags,
// pointers, slices, maps with string keys, strings, bools, integers, any,
// and json.RawMessage, which gets the value's RFC 8785 text (where the
// decoder keeps the text as written: the same value). Unlike the decoder
// it matches member names exactly, not also case-insensitively: the vector
// schema, which every vector file passes before it is decoded, allows no
// other names in the objects decoded into structs. Errors: a value of the
// wrong type for its field, an integer out of range or written with a
// fraction or exponent ("cannot unmarshal", as the decoder's).
//
// A vector file was parsed (canon.Parse, to validate it) and then decoded
// again from its text with encoding/json, which reads the text a second
// time and finds each field by reflection: decoding the parsed value is
// about 3x cheaper (bench/README.md).
func fromValue(v any, dst any) error {
	return storeValue(v, reflect.ValueOf(dst).Elem(), "")
}

func storeValue(v any, dst reflect.Value, at string) error {
	if dst.Type() == rawMessage {
		if v == nil {
			dst.SetBytes([]byte("null"))
			return nil
		}
		b, err := canon.Canonical(v)
		if err != nil {
			return fmt.Errorf("%s: %w", where(at), err)
		}
		dst.SetBytes(b)
		return nil
	}
	if v == nil {
		// null: a pointer, slice, map or interface becomes nil, anything
		// else is left as it is.
		switch dst.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			dst.SetZero()
		}
		return nil
	}
	mismatch := func() error {
		return fmt.Errorf("json: cannot unmarshal %s into Go value of type %s at %s", jsonType(v), dst.Type(), where(at))
	}
	switch dst.Kind() {
	case reflect.Interface:
		if dst.NumMethod() != 0 {
			return mismatch()
		}
		dst.Set(reflect.ValueOf(v))
	case reflect.Pointer:
		p := reflect.New(dst.Type().Elem())
		if err := storeValue(v, p.Elem(), at); err != nil {
			return err
		}
		dst.Set(p)
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return mismatch()
		}
		dst.SetString(s)
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return mismatch()
		}
		dst.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return mismatch()
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || dst.OverflowInt(i) {
			return fmt.Errorf("json: cannot unmarshal number %s into Go value of type %s at %s", n, dst.Type(), where(at))
		}
		dst.SetInt(i)
	case reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			return mismatch()
		}
		out := reflect.MakeSlice(dst.Type(), len(arr), len(arr))
		for i, e := range arr {
			if err := storeValue(e, out.Index(i), at+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
		dst.Set(out)
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok || dst.Type().Key().Kind() != reflect.String {
			return mismatch()
		}
		out := reflect.MakeMapWithSize(dst.Type(), len(obj))
		for k, e := range obj {
			ev := reflect.New(dst.Type().Elem()).Elem()
			if err := storeValue(e, ev, at+"/"+k); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), ev)
		}
		dst.Set(out)
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return mismatch()
		}
		for _, f := range structFields(dst.Type()) {
			e, ok := obj[f.name]
			if !ok {
				continue
			}
			if err := storeValue(e, dst.Field(f.index), at+"/"+f.name); err != nil {
				return err
			}
		}
	default:
		return mismatch()
	}
	return nil
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

type field struct {
	name  string
	index int
}

// fields holds structFields by type: what a type's tags say, found once
// for the process, as encoding/json keeps it (never changed once stored).
var fields sync.Map // reflect.Type -> []field

// structFields lists the fields encoding/json decodes into: exported, by
// their json tag's name (or their own), none tagged "-".
func structFields(t reflect.Type) []field {
	if fs, ok := fields.Load(t); ok {
		return fs.([]field)
	}
	out := make([]field, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("json"); ok {
			n, _, _ := strings.Cut(tag, ",")
			if n == "-" {
				continue
			}
			if n != "" {
				name = n
			}
		}
		out = append(out, field{name: name, index: i})
	}
	fields.Store(t, out)
	return out
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

func where(at string) string {
	if at == "" {
		return "the top"
	}
	return at
}
