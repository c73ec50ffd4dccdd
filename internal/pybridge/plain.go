package pybridge

import (
	"encoding/json"
	"reflect"
	"strings"
)

// plain is v as JSON-ready values with every field present: a struct's
// fields by their json names, omitempty ignored (Python reads d["x"] on
// any record without a KeyError), nil slices and maps empty.
func plain(v any) any { return plainValue(reflect.ValueOf(v)) }

var marshaler = reflect.TypeFor[json.Marshaler]()

func plainValue(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	if v.Type().Implements(marshaler) && (v.Kind() != reflect.Pointer || !v.IsNil()) {
		b, err := json.Marshal(v.Interface())
		if err == nil {
			var out any
			if json.Unmarshal(b, &out) == nil {
				return out
			}
		}
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return plainValue(v.Elem())
	case reflect.Struct:
		out := map[string]any{}
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			out[name] = plainValue(v.Field(i))
		}
		return out
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Bytes()
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = plainValue(v.Index(i))
		}
		return out
	case reflect.Map:
		out := map[string]any{}
		iter := v.MapRange()
		for iter.Next() {
			k, _ := json.Marshal(iter.Key().Interface())
			key := strings.Trim(string(k), `"`)
			out[key] = plainValue(iter.Value())
		}
		return out
	}
	return v.Interface()
}
