// Package registry lists hpgraph's built-in apps, in the order the front
// ends list them: adding an app is its folder under apps/ (package apps
// says what an App declares) and its line here.
package registry

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hpgraph/hpgraph/apps"
	"github.com/hpgraph/hpgraph/apps/bfs"
	"github.com/hpgraph/hpgraph/apps/cc"
	"github.com/hpgraph/hpgraph/apps/cdlp"
	"github.com/hpgraph/hpgraph/apps/lcc"
	"github.com/hpgraph/hpgraph/apps/pagerank"
	"github.com/hpgraph/hpgraph/apps/sssp"
	"github.com/hpgraph/hpgraph/apps/tc"
)

// registry is every built-in app, in the order the front ends list them.
var registry = []*apps.App{
	bfs.App,
	sssp.App,
	pagerank.App,
	pagerank.LDBCApp,
	tc.App,
	cc.App,
	lcc.App,
	cdlp.App,
}

// Apps returns the built-in apps in the order the front ends list them.
func Apps() []*apps.App { return slices.Clone(registry) }

// Names returns the apps' names, in Apps' order.
func Names() []string {
	names := make([]string, len(registry))
	for i, a := range registry {
		names[i] = a.Name
	}
	return names
}

// Lookup returns the app of a name or an alias, or nil.
func Lookup(name string) *apps.App {
	for _, a := range registry {
		if a.Name == name || slices.Contains(a.Aliases, name) {
			return a
		}
	}
	return nil
}

// Find is Lookup with an error that lists the apps.
func Find(name string) (*apps.App, error) {
	if a := Lookup(name); a != nil {
		return a, nil
	}
	return nil, fmt.Errorf("unknown algorithm %q; want one of %s", name, strings.Join(Names(), ", "))
}

// AllParams are every app's parameters, each once: apps.CommonParams,
// then the apps' in Apps' order.
func AllParams() []apps.AnyParam {
	all := apps.CommonParams()
	for _, a := range registry {
		for _, p := range a.Params {
			if !slices.Contains(all, p) {
				all = append(all, p)
			}
		}
	}
	return all
}

// DefaultParams are every parameter at its default.
func DefaultParams() apps.Params {
	var p apps.Params
	for _, prm := range AllParams() {
		prm.SetDefault(&p)
	}
	return p
}
