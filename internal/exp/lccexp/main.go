// Command lccexp is an experiment, on a work branch only: where LCC's
// kernel time goes on a GPU (its atomics, its hubs), against TC's.
package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hpgraph/hpgraph/apps"
	_ "github.com/hpgraph/hpgraph/cuda"
	"github.com/hpgraph/hpgraph/datasets"
	"github.com/hpgraph/hpgraph/vertexprog"
)

type variant struct {
	*apps.LCCProgram
	edit func(string) string
}

func (v variant) Device() vertexprog.DeviceCode {
	c := v.LCCProgram.Device()
	c.Source = v.edit(c.Source)
	return c
}

func main() {
	dg, err := datasets.Load(os.Args[1], datasets.Options{})
	if err != nil {
		panic(err)
	}
	g := vertexprog.NewGraph(dg)
	opt := vertexprog.Options{Backend: "cuda"}
	variants := []struct {
		name string
		edit func(string) string
	}{
		{"base", func(s string) string { return s }},
		{"noc", func(s string) string {
			return strings.NewReplacer("lcc_add(s, c, mab);", "", "lcc_add(s, c, 1);", "").Replace(s)
		}},
		{"noatomics", func(s string) string {
			return strings.NewReplacer("lcc_add(s, c, mab);", "", "lcc_add(s, c, 1);", "", "if (mid) lcc_add(s, b, mid);", "").Replace(s)
		}},
		{"nohub", func(s string) string { return strings.Replace(s, "if (r < s.hubs) {", "if (false) {", 1) }},
		// 32-bit atomics on the credits' low words (the counts stay right
		// while no word carries: a timing, not a result)
		{"c32", func(s string) string {
			return strings.Replace(s, "atomicAdd(reinterpret_cast<unsigned long long*>(p), (unsigned long long)m);",
				"atomicAdd(reinterpret_cast<unsigned int*>(p), (unsigned int)m);", 1)
		}},
	}
	// The slot candidate, once against LCC's result, then timed.
	want, err := apps.LCC(g, opt)
	if err != nil {
		panic(err)
	}
	for round := 0; round < 2; round++ {
		var ts []float64
		for i := 0; i < 5; i++ {
			p := &slotLCC{}
			r, err := vertexprog.Run(g, vertexprog.Program[int64, int64](p), opt)
			if err != nil {
				panic(err)
			}
			if i == 0 && round == 0 {
				bad := 0
				for v := range p.LCC {
					if p.LCC[v] != want.LCC[v] {
						if bad < 5 {
							fmt.Printf("slots: vertex %d: %v, LCC %v\n", v, p.LCC[v], want.LCC[v])
						}
						bad++
					}
				}
				fmt.Printf("slots: %d of %d vertices differ from LCC\n", bad, len(p.LCC))
			}
			ts = append(ts, float64(r.Device)/float64(time.Millisecond))
		}
		slices.Sort(ts)
		fmt.Printf("slots: device median %.3f ms (min %.3f max %.3f)\n", ts[2], ts[0], ts[4])
	}
	for round := 0; round < 2; round++ {
		for _, vr := range variants {
			var ts []float64
			for i := 0; i < 5; i++ {
				p := &apps.LCCProgram{}
				r, err := vertexprog.Run(g, vertexprog.Program[struct{}, int64](variant{p, vr.edit}), opt)
				if err != nil {
					panic(err)
				}
				ts = append(ts, float64(r.Device)/float64(time.Millisecond))
			}
			slices.Sort(ts)
			fmt.Printf("%s: device median %.3f ms (min %.3f max %.3f)\n", vr.name, ts[2], ts[0], ts[4])
		}
		var ts []float64
		for i := 0; i < 5; i++ {
			r, err := apps.Triangles(g, false, opt)
			if err != nil {
				panic(err)
			}
			ts = append(ts, float64(r.Run.Device)/float64(time.Millisecond))
		}
		slices.Sort(ts)
		fmt.Printf("tc: device median %.3f ms\n", ts[2])
	}
}
