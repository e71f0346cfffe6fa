package devgen

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"go/types"
	"slices"
	"strings"
)

// Generate translates every program of pkg and returns the Go file that
// gives each its Device method (nil when the package has no programs).
func Generate(pkg *Package) ([]byte, []*Program, error) { return GenerateTypes(pkg, nil) }

// GenerateTypes is Generate for the programs named (all when names is
// empty); naming a type that is no program is an error. A name may be an
// instantiation of a generic program, T[float32] (generic.go).
func GenerateTypes(pkg *Package, names []string) ([]byte, []*Program, error) {
	var only map[string]bool
	var insts []*instance
	if len(names) > 0 {
		only = map[string]bool{}
		for _, n := range names {
			if !strings.Contains(n, "[") {
				if tn, ok := pkg.Types.Scope().Lookup(n).(*types.TypeName); ok {
					if nt, ok := tn.Type().(*types.Named); ok && nt.TypeParams().Len() > 0 {
						return nil, nil, fmt.Errorf("devgen: %s: %s is generic: name the instantiations to translate, -type '%s[T]'", pkg.Dir, n, n)
					}
				}
				only[n] = true
				continue
			}
			in, err := parseInstance(pkg, n)
			if err != nil {
				return nil, nil, err
			}
			if !slices.ContainsFunc(insts, func(o *instance) bool { return types.Identical(o.typ, in.typ) }) {
				insts = append(insts, in)
			}
		}
	}
	found, err := find(pkg, only)
	if err != nil {
		return nil, nil, err
	}
	if only != nil && len(found) != len(only) {
		got := map[string]bool{}
		for _, t := range found {
			got[t.Obj().Name()] = true
		}
		for _, n := range names {
			if only[n] && !got[n] {
				return nil, nil, fmt.Errorf("devgen: %s: %s is not a vertex program of package %s", pkg.Dir, n, pkg.Types.Name())
			}
		}
	}
	if len(found) == 0 && len(insts) == 0 {
		return nil, nil, nil
	}
	var progs []*Program
	var errs []error
	hasDevice := func(t *types.Named) bool {
		if fd, _ := pkg.method(t, "Device"); fd != nil {
			errs = append(errs, &Error{Pos: pkg.Fset.Position(fd.Pos()), Msg: fmt.Sprintf("%s already has a Device method; devgen writes it (delete the hand-written one)", t.Obj().Name())})
			return true
		}
		return false
	}
	for _, t := range found {
		if hasDevice(t) {
			continue
		}
		p, err := Translate(pkg, t)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		progs = append(progs, p)
	}
	if len(insts) > 0 {
		mono, err := monomorphize(pkg, insts)
		if err != nil {
			return nil, nil, err
		}
		for _, in := range insts {
			if hasDevice(in.base.Type().(*types.Named)) {
				continue
			}
			ts, err := find(mono, map[string]bool{in.mono: true})
			if err == nil && len(ts) == 0 {
				err = fmt.Errorf("devgen: %s: %s is not a vertex program", pkg.Dir, in.name)
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			p, err := translateAs(mono, ts[0], in.name)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			p.Instance = in
			progs = append(progs, p)
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n\npackage %s\n\nimport \"%s\"\n", generatedHeader, pkg.Types.Name(), vertexprogPath)
	if needB2i(progs) {
		b.WriteString("\nfunc vp_b2i(b bool) int32 {\n\tif b {\n\t\treturn 1\n\t}\n\treturn 0\n}\n")
	}
	consts := map[string]bool{}
	constName := func(p *Program) string {
		c := lowerFirst(p.Name) + "DeviceSource"
		if in := p.Instance; in != nil {
			c = lowerFirst(in.base.Name())
			for i := 0; i < in.typ.TypeArgs().Len(); i++ {
				c += goIdent(types.TypeString(in.typ.TypeArgs().At(i), func(*types.Package) string { return "" }))
			}
			c += "DeviceSource"
		}
		for base, i := c, 2; consts[c]; i++ {
			c = fmt.Sprintf("%s%d", base, i)
		}
		consts[c] = true
		return c
	}
	done := map[*types.TypeName]bool{}
	for _, p := range progs {
		if p.Instance != nil {
			if base := p.Instance.base; !done[base] {
				done[base] = true
				writeGenericDevice(&b, base, progs, constName)
			}
			continue
		}
		recv := p.Name
		if p.Pointer {
			recv = "*" + p.Name
		}
		c := constName(p)
		fmt.Fprintf(&b, "\n// %s is %s's device code, translated from its Go methods.\nconst %s = `%s`\n", c, p.Name, c, p.Source)
		if p.Init {
			fmt.Fprintf(&b, "\n// Device implements vertexprog.DeviceProgram. Its vp_init is Init's\n// translation: a device backend makes the initial state itself.\n")
		} else {
			fmt.Fprintf(&b, "\n// Device implements vertexprog.DeviceProgram. Init runs on the host:\n// %s\n", strings.ReplaceAll(p.NoInit, "\n", " "))
		}
		fmt.Fprintf(&b, "func (vp_p %s) Device() vertexprog.DeviceCode {\n\treturn ", recv)
		writeDeviceCode(&b, p, c)
		b.WriteString("}\n")
	}
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, nil, fmt.Errorf("devgen: formatting the generated file: %v", err)
	}
	return out, progs, nil
}

// writeGenericDevice writes the device code of base's instantiations
// among progs and base's one Device method, which picks the
// instantiation's by a type switch.
func writeGenericDevice(b *bytes.Buffer, base *types.TypeName, progs []*Program, constName func(*Program) string) {
	var insts []*Program
	var names []string
	for _, p := range progs {
		if p.Instance != nil && p.Instance.base == base {
			insts = append(insts, p)
			names = append(names, p.Name)
		}
	}
	cs := make([]string, len(insts))
	usesP := false
	for i, p := range insts {
		cs[i] = constName(p)
		fmt.Fprintf(b, "\n// %s is %s's device code, translated from its Go methods.\nconst %s = `%s`\n", cs[i], p.Name, cs[i], p.Source)
		usesP = usesP || len(p.Arrays) > 0 || len(p.Scalars) > 0
	}
	tps := make([]string, base.Type().(*types.Named).TypeParams().Len())
	for i := range tps {
		tps[i] = "_"
	}
	recv := base.Name() + "[" + strings.Join(tps, ", ") + "]"
	if insts[0].Pointer {
		recv = "*" + recv
	}
	fmt.Fprintf(b, "\n// Device implements vertexprog.DeviceProgram for the instantiations of\n// %s translated from the Go methods:\n", base.Name())
	for _, p := range insts {
		if p.Init {
			fmt.Fprintf(b, "//   - %s (its vp_init is Init's translation)\n", p.Name)
		} else {
			fmt.Fprintf(b, "//   - %s (Init runs on the host: %s)\n", p.Name, strings.ReplaceAll(p.NoInit, "\n", " "))
		}
	}
	fmt.Fprintf(b, "//\n// Others get device code that does not compile: a device run of one\n// fails with an error naming the instantiations translated.\n")
	fmt.Fprintf(b, "func (vp_p %s) Device() vertexprog.DeviceCode {\n", recv)
	if usesP {
		b.WriteString("\tswitch vp_p := any(vp_p).(type) {\n")
	} else {
		b.WriteString("\tswitch any(vp_p).(type) {\n")
	}
	for i, p := range insts {
		t := p.Name
		if p.Pointer {
			t = "*" + t
		}
		fmt.Fprintf(b, "\tcase %s:\n\t\treturn ", t)
		writeDeviceCode(b, p, cs[i])
	}
	fmt.Fprintf(b, "\t}\n\treturn vertexprog.DeviceCode{Source: %q}\n}\n",
		fmt.Sprintf("\n#error \"devgen: no device code for this instantiation of %s; devgen -type translated %s\"\n", base.Name(), strings.Join(names, ", ")))
}

// writeDeviceCode writes p's DeviceCode literal, its source the constant c
// and its data the fields of vp_p.
func writeDeviceCode(b *bytes.Buffer, p *Program, c string) {
	fmt.Fprintf(b, "vertexprog.DeviceCode{\n\t\tSource: %s,\n", c)
	if p.Init {
		b.WriteString("\t\tInit: true,\n")
	}
	if len(p.Arrays) > 0 {
		b.WriteString("\t\tArrays: []vertexprog.DeviceArray{\n")
		for _, a := range p.Arrays {
			ro := ""
			if a.ReadOnly {
				ro = ", ReadOnly: true"
			}
			if a.Constant {
				ro += ", Constant: true"
			}
			if a.Input {
				fmt.Fprintf(b, "\t\t\t{Name: %q, Data: []%s{%s}%s},\n", a.Name, a.goElem, fmt.Sprintf(a.goValue, "vp_p"), ro)
				continue
			}
			fmt.Fprintf(b, "\t\t\t{Name: %q, Data: vp_p.%s%s},\n", a.Name, a.GoField, ro)
		}
		b.WriteString("\t\t},\n")
	}
	if len(p.Scalars) > 0 {
		b.WriteString("\t\tScalars: []vertexprog.DeviceScalar{\n")
		for _, s := range p.Scalars {
			fmt.Fprintf(b, "\t\t\t{Name: %q, Value: %s},\n", s.Name, fmt.Sprintf(s.goValue, "vp_p"))
		}
		b.WriteString("\t\t},\n")
	}
	b.WriteString("\t}\n")
}

func needB2i(progs []*Program) bool {
	for _, p := range progs {
		for _, s := range append(p.Scalars, p.Arrays...) {
			if strings.HasPrefix(s.goValue, "vp_b2i(") {
				return true
			}
		}
	}
	return false
}

// lowerFirst lowers s's leading initialism as Go names do: Program →
// program, BFSProgram → bfsProgram, CC → cc.
func lowerFirst(s string) string {
	i := 0
	for i < len(s) && s[i] >= 'A' && s[i] <= 'Z' {
		i++
	}
	if i > 1 && i < len(s) && s[i] >= 'a' && s[i] <= 'z' {
		i--
	}
	return strings.ToLower(s[:i]) + s[i:]
}
