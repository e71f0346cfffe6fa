package devgen

import (
	"fmt"
	"go/constant"
	"go/types"
	"math"
	"strconv"
	"strings"
)

// numKind classifies the numeric types of the subset.
type numKind int

const (
	kNone numKind = iota
	kBool
	kI32
	kU32
	kI64 // int64 and int (8 bytes on every host hpgraph runs on)
	kU64
	kF32
	kF64
)

func (k numKind) isInt() bool      { return k >= kI32 && k <= kU64 }
func (k numKind) isSigned() bool   { return k == kI32 || k == kI64 }
func (k numKind) isUnsigned() bool { return k == kU32 || k == kU64 }
func (k numKind) isFloat() bool    { return k == kF32 || k == kF64 }
func (k numKind) bits() int {
	switch k {
	case kI32, kU32, kF32:
		return 32
	case kI64, kU64, kF64:
		return 64
	}
	return 8
}

// cName is the C type of a kind.
func (k numKind) cName() string {
	return [...]string{"", "bool", "int", "unsigned int", "long long", "unsigned long long", "float", "double"}[k]
}

// unsigned is the unsigned C type of an integer kind's width.
func (k numKind) unsigned() string {
	if k.bits() == 32 {
		return "unsigned int"
	}
	return "unsigned long long"
}

// tag names a kind in helper names.
func (k numKind) tag() string {
	return [...]string{"", "b", "i32", "u32", "i64", "u64", "f32", "f64"}[k]
}

// kindOf is t's numeric kind, kNone for any other type.
func kindOf(t types.Type) numKind {
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return kNone
	}
	switch b.Kind() {
	case types.Bool, types.UntypedBool:
		return kBool
	case types.Int32, types.UntypedRune:
		return kI32
	case types.Uint32:
		return kU32
	case types.Int64, types.Int, types.UntypedInt:
		return kI64
	case types.Uint64:
		return kU64
	case types.Float32:
		return kF32
	case types.Float64, types.UntypedFloat:
		return kF64
	}
	return kNone
}

// cStruct is a Go struct type laid out as a C struct.
type cStruct struct {
	t      *types.Struct
	name   string
	fields []string // C member names, in order
}

// cType is the C spelling of t; structs get a declaration (registered on
// first use).
func (g *gen) cType(t types.Type) (string, error) {
	if k := kindOf(t); k != kNone {
		return k.cName(), nil
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok {
		return "", fmt.Errorf("type %s is outside the subset (numeric types, bool and structs of them)", types.TypeString(t, g.qual))
	}
	for _, s := range g.structs {
		if types.Identical(s.t, st) {
			return s.name, nil
		}
	}
	base := "anon"
	if n, ok := t.(*types.Named); ok {
		base = n.Obj().Name()
	}
	name := "vp_t_" + base
	for i := 2; g.usedStruct[name]; i++ {
		name = fmt.Sprintf("vp_t_%s_%d", base, i)
	}
	cs := &cStruct{t: st, name: name}
	// The C layout (each member at the next multiple of its alignment, the
	// size a multiple of the largest) must be Go's.
	off, align := int64(0), int64(1)
	goOffs := sizes.Offsetsof(fieldsOf(st))
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if _, err := g.cType(f.Type()); err != nil {
			return "", fmt.Errorf("field %s of %s: %v", f.Name(), types.TypeString(t, g.qual), err)
		}
		sz, al := sizes.Sizeof(f.Type()), sizes.Alignof(f.Type())
		if sz == 0 {
			return "", fmt.Errorf("field %s of %s has no bytes (a C member always has some)", f.Name(), types.TypeString(t, g.qual))
		}
		off = (off + al - 1) / al * al
		if off != goOffs[i] {
			return "", fmt.Errorf("field %s of %s is at byte %d in Go, %d in C", f.Name(), types.TypeString(t, g.qual), goOffs[i], off)
		}
		off += sz
		align = max(align, al)
		n := f.Name()
		if n == "_" {
			n = fmt.Sprintf("vp_pad%d", i)
		} else if !cIdentOK(n) {
			n = "vp_f_" + n
		}
		cs.fields = append(cs.fields, n)
	}
	if sz := (off + align - 1) / align * align; st.NumFields() > 0 && sz != sizes.Sizeof(st) {
		return "", fmt.Errorf("%s has %d bytes in Go, %d in C", types.TypeString(t, g.qual), sizes.Sizeof(st), sz)
	}
	g.usedStruct[name] = true
	g.structs = append(g.structs, cs)
	return name, nil
}

func fieldsOf(st *types.Struct) []*types.Var {
	fs := make([]*types.Var, st.NumFields())
	for i := range fs {
		fs[i] = st.Field(i)
	}
	return fs
}

// structOf returns the registered C struct of t.
func (g *gen) structOf(t types.Type) *cStruct {
	st, _ := t.Underlying().(*types.Struct)
	for _, s := range g.structs {
		if st != nil && types.Identical(s.t, st) {
			return s
		}
	}
	return nil
}

// structDecls declares the C structs, with static_asserts of their size
// and alignment.
func (g *gen) structDecls() string {
	var b strings.Builder
	for _, s := range g.structs {
		fmt.Fprintf(&b, "struct %s {", s.name)
		for i := 0; i < s.t.NumFields(); i++ {
			ct, _ := g.cType(s.t.Field(i).Type())
			if i > 0 {
				b.WriteString(";")
			}
			fmt.Fprintf(&b, " %s %s", ct, s.fields[i])
		}
		if s.t.NumFields() > 0 {
			b.WriteString("; ")
		}
		b.WriteString("};\n")
		if s.t.NumFields() == 0 {
			continue
		}
		fmt.Fprintf(&b, "static_assert(sizeof(%s) == %d && alignof(%s) == %d, \"devgen: %s must be laid out as Go's %s\");\n",
			s.name, sizes.Sizeof(s.t), s.name, sizes.Alignof(s.t), s.name, types.TypeString(s.t, g.qual))
		// Member offsets: NVRTC has no offsetof in constant expressions;
		// cType checked that C's layout rule puts each member where Go
		// does, and the size and alignment asserted here confirm it.
	}
	return b.String()
}

// zero is the C zero value of t.
func (g *gen) zero(t types.Type) (string, error) {
	switch k := kindOf(t); k {
	case kBool:
		return "false", nil
	case kNone:
		ct, err := g.cType(t)
		if err != nil {
			return "", err
		}
		return ct + "{}", nil
	default:
		return g.constLit(constant.MakeInt64(0), t)
	}
}

// constLit is the C literal of constant v as type t (untyped constants
// take their default type).
func (g *gen) constLit(v constant.Value, t types.Type) (string, error) {
	k := kindOf(t)
	switch k {
	case kBool:
		if constant.BoolVal(v) {
			return "true", nil
		}
		return "false", nil
	case kI32, kI64, kU32, kU64:
		v = constant.ToInt(v)
		if v.Kind() != constant.Int {
			return "", fmt.Errorf("constant %s is not an integer", v)
		}
		if k.isUnsigned() {
			u, ok := constant.Uint64Val(v)
			if !ok || (k == kU32 && u > math.MaxUint32) {
				return "", fmt.Errorf("constant %s overflows %s", v, k.cName())
			}
			if k == kU32 {
				return strconv.FormatUint(u, 10) + "u", nil
			}
			return strconv.FormatUint(u, 10) + "ULL", nil
		}
		i, ok := constant.Int64Val(v)
		if !ok || (k == kI32 && (i < math.MinInt32 || i > math.MaxInt32)) {
			return "", fmt.Errorf("constant %s overflows %s", v, k.cName())
		}
		suffix := ""
		if k == kI64 {
			suffix = "LL"
		}
		switch {
		case k == kI32 && i == math.MinInt32:
			return "(-2147483647 - 1)", nil
		case k == kI64 && i == math.MinInt64:
			return "(-9223372036854775807LL - 1)", nil
		case i < 0:
			return "(" + strconv.FormatInt(i, 10) + suffix + ")", nil
		}
		return strconv.FormatInt(i, 10) + suffix, nil
	case kF32, kF64:
		v = constant.ToFloat(v)
		if v.Kind() != constant.Float && v.Kind() != constant.Int {
			return "", fmt.Errorf("constant %s is not a number", v)
		}
		var s string
		if k == kF32 {
			f, _ := constant.Float32Val(v)
			if math.IsInf(float64(f), 0) {
				return "", fmt.Errorf("constant %s overflows float32", v)
			}
			s = strconv.FormatFloat(float64(f), 'g', -1, 32)
		} else {
			f, _ := constant.Float64Val(v)
			if math.IsInf(f, 0) {
				return "", fmt.Errorf("constant %s overflows float64", v)
			}
			s = strconv.FormatFloat(f, 'g', -1, 64)
		}
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		if k == kF32 {
			s += "f"
		}
		if strings.HasPrefix(s, "-") {
			s = "(" + s + ")"
		}
		return s, nil
	}
	return "", fmt.Errorf("constant of type %s is outside the subset", types.TypeString(t, g.qual))
}

// reserved are names a translated identifier must not take: C++ keywords,
// CUDA's built-in variables, and the device functions generated code
// calls (a local of that name would shadow them).
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`alignas alignof and and_eq asm auto bitand bitor bool break case catch char
char8_t char16_t char32_t class compl concept const consteval constexpr constinit const_cast continue
co_await co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq nullptr
operator or or_eq private protected public register reinterpret_cast requires return short signed sizeof
static static_assert static_cast struct switch template this thread_local throw true try typedef typeid
typename union unsigned using virtual void volatile wchar_t while xor xor_eq
threadIdx blockIdx blockDim gridDim warpSize min max fabs floor ceil trunc round rint copysign signbit
fma sqrt isnan isinf atomicMin atomicMax atomicAdd atomicCAS X_t A_t State Step NULL`) {
		reserved[w] = true
	}
}

// cIdentOK reports whether a Go identifier may be used as is in C.
func cIdentOK(n string) bool {
	if reserved[n] || strings.HasPrefix(n, "vp_") || strings.HasPrefix(n, "_") || strings.HasPrefix(n, "VP_") {
		return false
	}
	for _, r := range n {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return n != ""
}
