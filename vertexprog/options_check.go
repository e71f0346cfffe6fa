package vertexprog

import (
	"errors"
	"fmt"
	"math"
)

// ErrBadOptions is wrapped by the error Run returns for Options it cannot
// honour (a Direction or Rule that is none of the constants, a negative
// or non-finite Alpha or Beta, a negative MaxIterations), so that a
// mistake fails the run instead of running it some other way.
var ErrBadOptions = errors.New("vertexprog: invalid Options")

// check refuses the values of o that no constant or default gives.
// (Backend is checked where it is looked up, HYB by hyb.)
func (o Options) check() error {
	switch {
	case o.Direction != Auto && o.Direction != Push && o.Direction != Pull:
		return fmt.Errorf("%w: Direction %d; want Auto, Push or Pull", ErrBadOptions, int(o.Direction))
	case o.Rule != Beamer && o.Rule != GraphBLAST:
		return fmt.Errorf("%w: Rule %d; want Beamer or GraphBLAST", ErrBadOptions, int(o.Rule))
	case !(o.Alpha >= 0) || math.IsInf(o.Alpha, 1):
		return fmt.Errorf("%w: Alpha %v; want 0 (GAP's 15) or a positive number", ErrBadOptions, o.Alpha)
	case !(o.Beta >= 0) || math.IsInf(o.Beta, 1):
		return fmt.Errorf("%w: Beta %v; want 0 (GAP's 18) or a positive number", ErrBadOptions, o.Beta)
	case o.MaxIterations < 0:
		return fmt.Errorf("%w: MaxIterations %d; want 0 (the program's own) or more", ErrBadOptions, o.MaxIterations)
	case o.Parts < 0:
		return fmt.Errorf("%w: Parts %d; want 0 (one per device of the backend) or more", ErrBadOptions, o.Parts)
	}
	return nil
}
