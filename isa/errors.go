package isa

import "errors"

// Kinds of error shared by every package (errors.Is): a package names its
// own case of a kind with KindError, so errors.Is(err, isa.ErrUnsupported)
// holds whether the reference, the engines or the control rules refused.
var (
	ErrUnsupported = errors.New("not supported")
	ErrBounds      = errors.New("out of bounds")
)

// kindError is an error with a message of its own that is also its kind.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// KindError is a sentinel with message msg that errors.Is kind too: a
// package's own name for a case of a kind shared across packages.
func KindError(kind error, msg string) error { return &kindError{msg, kind} }
