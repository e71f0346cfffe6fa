package apps_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/hpgraph/hpgraph/apps"
)

// A parameter with no field of apps.Params, as an app declares one in its
// folder: its value is kept in Params as a field's is.
var (
	paramScale = &apps.Param[float64]{
		Name: "test-scale", Default: 1.5, Help: "a scale",
		Check: func(x float64) error {
			if !(x >= 0) {
				return fmt.Errorf("%g: want 0 or more", x)
			}
			return nil
		},
	}
	paramLabel = &apps.Param[string]{Name: "test-label", Default: "none", Help: "a label"}
)

func TestDeclaredParamHoldsItsValue(t *testing.T) {
	var p apps.Params
	if got := paramScale.Get(&p); got != 0 {
		t.Errorf("in a zero Params: %v, want 0 as a field's", got)
	}
	paramScale.SetDefault(&p)
	if got := paramScale.Get(&p); got != 1.5 || paramScale.Value(&p) != any(1.5) {
		t.Errorf("default: %v, %v", got, paramScale.Value(&p))
	}
	if err := paramScale.Set(&p, "2.25"); err != nil || paramScale.Get(&p) != 2.25 {
		t.Errorf("Set 2.25: %v, %v", err, paramScale.Get(&p))
	}
	paramLabel.SetValue(&p, "x")
	p.Damping = 0.5
	if paramScale.Get(&p) != 2.25 || paramLabel.Get(&p) != "x" || p.Damping != 0.5 {
		t.Errorf("scale %v, label %q, damping %v: one value set changed another", paramScale.Get(&p), paramLabel.Get(&p), p.Damping)
	}
	// A bad value: the error of a field's parameter, and the value kept.
	for text, want := range map[string]string{"x": `test-scale: "x": want a number`, "-1": "test-scale: -1: want 0 or more"} {
		err := paramScale.Set(&p, text)
		var pe *apps.ParamError
		if !errors.As(err, &pe) || pe.Param != paramScale || err.Error() != want || !errors.Is(err, apps.ErrInvalidInput) {
			t.Errorf("Set %q: %v, want %s", text, err, want)
		}
		if paramScale.Get(&p) != 2.25 {
			t.Errorf("Set %q changed the value to %v", text, paramScale.Get(&p))
		}
	}
}

// TestDeclaredParamsAreCopied: a copied Params (a Request's, the
// defaults handed to each query) holds its own values; setting one in a
// copy, from any goroutine, changes no other copy.
func TestDeclaredParamsAreCopied(t *testing.T) {
	var base apps.Params
	paramScale.SetDefault(&base)
	paramLabel.SetDefault(&base)
	var wg sync.WaitGroup
	got := make([]float64, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := apps.Request{Params: base}
			paramScale.SetValue(&req.Params, float64(i))
			paramLabel.SetValue(&req.Params, fmt.Sprint(i))
			copied := req.Params
			paramScale.SetValue(&copied, -1)
			if paramLabel.Get(&req.Params) == fmt.Sprint(i) {
				got[i] = paramScale.Get(&req.Params)
			}
		}()
	}
	wg.Wait()
	for i, v := range got {
		if v != float64(i) {
			t.Errorf("copy %d: %v", i, v)
		}
	}
	if paramScale.Get(&base) != 1.5 || paramLabel.Get(&base) != "none" {
		t.Errorf("the copies changed the original: %v, %q", paramScale.Get(&base), paramLabel.Get(&base))
	}
}

// TestAppTakesDeclaredParam: an app's own parameter is among its
// parameters, at its default in the app's defaults, and checked with them.
func TestAppTakesDeclaredParam(t *testing.T) {
	a := &apps.App{Name: "scaled", Params: []apps.AnyParam{paramScale}}
	if a.Param("test_scale") != paramScale || a.Param("test-scale") != paramScale || a.Takes("test-label") {
		t.Error("the app's parameters by name")
	}
	p := a.DefaultParams()
	if paramScale.Get(&p) != 1.5 || p.MaxIter != 0 {
		t.Errorf("defaults: scale %v, max-iter %d", paramScale.Get(&p), p.MaxIter)
	}
	if err := a.CheckParams(&p); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	paramScale.SetValue(&p, -2)
	if err := a.CheckParams(&p); err == nil || err.Param != paramScale {
		t.Errorf("scale -2: %v", err)
	}
}
