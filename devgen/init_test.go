package devgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpgraph/hpgraph/devgen/internal/initprog"
	"github.com/hpgraph/hpgraph/vertexprog"
)

// TestInit: Init becomes vp_init when it is in the subset and certain to
// give the host's initial state; otherwise the program keeps its host
// Init, without an error, and the generated file says why.
func TestInit(t *testing.T) {
	cases := []struct {
		name   string
		p      program
		want   []string // substrings of the device code
		why    string   // "" when vp_init is expected, else a substring of NoInit
		arrays []string // DeviceCode.Arrays' names, in order
	}{
		{"source as input array", program{init: "\tif v == p.K {\n\t\treturn 0, true\n\t}\n\treturn float32(p.Val[v]), false"},
			[]string{"__device__ bool vp_init(int v, X_t* vp_x, const State& vp_s, Step& s)", "const int* K;  // one element", "(v == vp_s.K[0])", "*vp_x = 0.0f;", "return true;", "const double* Val;"}, "", []string{"K", "Val"}},
		{"bool and int inputs", program{init: "\tif p.B && int(v) < p.N {\n\t\treturn 1, true\n\t}\n\treturn 2, false"},
			[]string{"const int* B;  // one element", "(vp_s.B[0] != 0)", "const long long* N;  // one element"}, "", []string{"B", "N"}},
		{"scalar shared with Update stays a scalar", program{update: "\treturn acc > float32(p.K)", init: "\treturn 0, v == p.K"},
			[]string{"int K;\n", "(v == vp_s.K)"}, "", nil},
		{"reads back what it wrote", program{x: "int32", a: "int32", update: "\tp.Cnt[v] = acc\n\treturn true",
			init: "\tif v == 0 {\n\t\tp.Cnt[v], p.Val[v] = 1, 2\n\t\treturn 0, true\n\t} else {\n\t\tp.Cnt[v] = 0\n\t}\n\tp.Val[v] = float64(p.U[v])\n\ts.Add(0, 1)\n\treturn int32(p.Cnt[v]), false"},
			nil, "reads Cnt", nil},
		{"writes at v", program{x: "int32", a: "int32", update: "\tp.Cnt[v] = acc\n\treturn true",
			init: "\tif v == 0 {\n\t\tp.Cnt[v], p.Val[v] = 1, 2\n\t\treturn 0, true\n\t} else {\n\t\tp.Cnt[v] = 0\n\t}\n\tp.Val[v] = float64(p.U[v])\n\ts.Add(0, s.Aggregate(0))\n\treturn 3, false"},
			[]string{"vp_s.Cnt[v] = 0;", "s.add((int)0LL, s.aggregate((int)0LL));", "double* Val;", "int* Cnt;", "const unsigned long long* U;"}, "", []string{"Cnt", "Val", "U"}},
		{"reads an array Update writes", program{x: "int32", a: "int32", update: "\tp.Cnt[v] = acc\n\treturn true", init: "\tp.Cnt[v] = 1\n\treturn p.Cnt[v], false"},
			nil, "Init reads Cnt, which the device code writes", nil},
		{"misses a write on a path", program{x: "int32", a: "int32", update: "\tp.Cnt[v] = acc\n\treturn true", init: "\tif v == 0 {\n\t\tp.Cnt[v] = 1\n\t\treturn 0, true\n\t}\n\treturn 0, false"},
			nil, "does not write Cnt[v] on every path", nil},
		{"writes only in a loop", program{x: "int32", a: "int32", update: "\tp.Cnt[v] = acc\n\treturn true", init: "\tfor range 2 {\n\t\tp.Cnt[v] = 1\n\t}\n\treturn 0, false"},
			nil, "does not write Cnt[v] on every path", nil},
		{"outside the subset", program{init: "\tfor i := range p.Val {\n\t\tp.Val[i] = 0\n\t}\n\treturn 0, false"},
			nil, "prog.go:", nil},
		{"calls a function (PageRank's share)", program{x: "float64", a: "float64", decls: "func share(r float64, d int32) float64 {\n\tif d == 0 {\n\t\treturn 0\n\t}\n\treturn r / float64(d)\n}",
			update: "\tp.Val[v] = acc\n\t*x = share(acc, p.Cnt[v])\n\treturn true", init: "\tp.Val[v] = 1\n\treturn share(1, p.Cnt[v]), true"},
			[]string{"vp_s.Val[v] = 1.0;", "*vp_x = vp_fn_share(1.0, vp_s.Cnt[v]);"}, "", []string{"Val", "Cnt"}},
		{"Iteration", program{init: "\treturn float32(s.Iteration), false"}, nil, "Step field Iteration", nil},
		{"writes at another vertex", program{x: "int32", a: "int32", init: "\tp.Cnt[0] = 1\n\treturn 0, false"}, nil, "only at", nil},
		{"failed Init leaves no State member", program{x: "int32", a: "int32", init: "\t_ = p.F\n\tp.Cnt[v] = 1\n\treturn 0, false\n\tfor {\n\t}"}, nil, "prog.go:", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := translateOne(t, c.p.src())
			if err != nil {
				t.Fatalf("%v\n%s", err, c.p.src())
			}
			if c.why == "" {
				if !p.Init {
					t.Fatalf("no vp_init: %s\n%s", p.NoInit, c.p.src())
				}
			} else if p.Init || !strings.Contains(p.NoInit, c.why) {
				t.Fatalf("vp_init %v, why not %q; want none because %q\n%s", p.Init, p.NoInit, c.why, p.Source)
			}
			if !p.Init && (strings.Contains(p.Source, "vp_init") || strings.Contains(p.Source, " F;")) {
				t.Errorf("a program without vp_init has its traces:\n%s", p.Source)
			}
			for _, w := range c.want {
				if !strings.Contains(p.Source, w) {
					t.Errorf("device code lacks %q:\n%s", w, p.Source)
				}
			}
			if c.arrays != nil {
				var names []string
				for _, a := range p.Arrays {
					names = append(names, a.Name)
				}
				if strings.Join(names, ",") != strings.Join(c.arrays, ",") {
					t.Errorf("arrays %v, want %v", names, c.arrays)
				}
			}
			nvrtcCheck(t, p)
		})
	}
}

// TestInitOnHost compiles initprog's vp_init as host C++ (UBSan on) and
// compares, vertex by vertex, X, the activity and the arrays it writes
// with the Go Init's, bit for bit, for every per-run input combination.
func TestInitOnHost(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	pkg, err := Load("internal/initprog")
	if err != nil {
		t.Fatal(err)
	}
	_, progs, err := Generate(pkg)
	if err != nil {
		t.Fatal(err)
	}
	p := progs[0]
	if !p.Init {
		t.Fatalf("initprog has no vp_init: %s", p.NoInit)
	}
	r := rand.New(rand.NewPCG(5, 6))
	const n = 4000
	deg, w := make([]int32, n), make([]float64, n)
	for i := range deg {
		deg[i] = i32s[r.IntN(len(i32s))]
		if r.IntN(2) == 0 {
			deg[i] = int32(r.Uint32())
		}
		w[i] = f64s[r.IntN(len(f64s))]
		if r.IntN(2) == 0 {
			w[i] = r.NormFloat64() * 1e6
		}
	}
	dir := t.TempDir()
	for ci, in := range []struct {
		src int32
		lim float64
		neg bool
		k   int32
	}{{0, 2, true, 5}, {17, 0, false, -1}, {n - 1, math.NaN(), true, math.MaxInt32}, {-1, math.Inf(-1), true, math.MinInt32}} {
		var c strings.Builder
		c.WriteString(strings.Replace(hostShims, "struct Step { int iteration; };", "struct Step { int iteration; double aggregate(int) { return 0; } void add(int, double) {} };", 1))
		c.WriteString(p.Source)
		arr := func(name, typ string, n int, f func(i int) string) {
			fmt.Fprintf(&c, "static %s %s[%d] = {", typ, name, n)
			for i := range n {
				c.WriteString(f(i) + ",")
			}
			c.WriteString("};\n")
		}
		arr("deg", "int", n, func(i int) string { return fmt.Sprintf("(int)%#xu", uint32(deg[i])) })
		arr("wb", "unsigned long long", n, func(i int) string { return fmt.Sprintf("%#xull", math.Float64bits(w[i])) })
		fmt.Fprintf(&c, `static double w[%d]; static long long out[%d]; static unsigned mark[%d];
int main() {
  memcpy(w, wb, sizeof w);
  const int src = %d; const unsigned long long limb = %#xull; double lim; memcpy(&lim, &limb, 8); const int neg = %d;
  State s;
  s.Deg = deg; s.W = w; s.Out = out; s.Mark = mark; s.Src = &src; s.Lim = &lim; s.Neg = &neg; s.K = %d;
  Step st;
  for (int v = 0; v < %d; v++) {
    X_t x; memset(&x, 0, sizeof x);
    bool a = vp_init(v, &x, s, st);
    unsigned d; memcpy(&d, &x.D, 4);
    printf("%%x %%x %%d %%llx %%x\n", d, (unsigned)x.H, (int)a, (unsigned long long)out[v], mark[v]);
  }
}
`, n, n, n, in.src, math.Float64bits(in.lim), map[bool]int{true: 1}[in.neg], in.k, n)
		file := filepath.Join(dir, fmt.Sprintf("init%d.cc", ci))
		if err := os.WriteFile(file, []byte(c.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		bin := strings.TrimSuffix(file, ".cc")
		if out, err := exec.Command(cxx, "-std=c++17", "-O1", "-ffp-contract=off", "-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all", "-o", bin, file).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s\n%s", err, out, numbered(c.String()))
		}
		got, err := exec.Command(bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		g := &initprog.Program{Src: in.src, Lim: in.lim, Neg: in.neg, K: in.k, Deg: deg, W: w, Out: make([]int64, n), Mark: make([]uint32, n)}
		lines := strings.Split(strings.TrimSpace(string(got)), "\n")
		if len(lines) != n {
			t.Fatalf("%d lines of output, want %d", len(lines), n)
		}
		bad := 0
		for v := range int32(n) {
			x, a := g.Init(v, &vertexprog.Step{Iteration: -1})
			want := fmt.Sprintf("%x %x %d %x %x", math.Float32bits(x.D), uint32(x.H), map[bool]int{true: 1}[a], uint64(g.Out[v]), g.Mark[v])
			if lines[v] != want && !(math.IsNaN(float64(x.D)) && strings.HasPrefix(lines[v], "7fc00000")) {
				if bad++; bad <= 5 {
					t.Errorf("inputs %+v, vertex %d (deg %d, w %v): C %s, Go %s", in, v, deg[v], w[v], lines[v], want)
				}
			}
		}
	}
}
