package verbs

import (
	"go/types"
	"testing"
)

func TestLookup(t *testing.T) {
	par := types.NewPackage(Par, "par")
	sig := types.NewSignatureType(nil, nil, nil, nil, nil, false)
	for _, v := range Table {
		fn := types.NewFunc(0, par, v.Name, sig)
		if v.Pkg != Par {
			continue
		}
		got := Lookup(fn)
		if got == nil || got.Name != v.Name {
			t.Errorf("Lookup(%s) = %v", v.Name, got)
		}
		if d := Display(fn); d != "par."+v.Name {
			t.Errorf("Display(%s) = %q", v.Name, d)
		}
	}
	if Lookup(types.NewFunc(0, types.NewPackage("example.com/par", "par"), "For", sig)) != nil {
		t.Error("Lookup matched For in another package")
	}
	if Lookup(types.NewFunc(0, par, "Nope", sig)) != nil {
		t.Error("Lookup matched an unknown function")
	}

	// A method is named Type.Method.
	named := types.NewNamed(types.NewTypeName(0, par, "Pool", nil), types.NewStruct(nil, nil), nil)
	recv := types.NewVar(0, par, "p", types.NewPointer(named))
	m := types.NewFunc(0, par, "For", types.NewSignatureType(recv, nil, nil, nil, nil, false))
	if n := Name(m); n != "Pool.For" {
		t.Errorf("Name(method) = %q, want Pool.For", n)
	}
	if Lookup(m) != nil {
		t.Error("Lookup matched the method Pool.For to the function For")
	}
}

func TestTableIndexes(t *testing.T) {
	for _, v := range Table {
		for _, a := range v.Args {
			if a.Range && len(a.Index) != 2 {
				t.Errorf("%s: a range body needs two index parameters (lo, hi), has %v", v.Name, a.Index)
			}
			if a.Kind == Once && len(a.Index) > 0 {
				t.Errorf("%s: a function run once has no index", v.Name)
			}
		}
	}
}
