// Package version is ndma's release, one constant the CLI (`ndma
// --version`) and the Python package (`ndma.__version__`) both print.
package version

// Release is ndma's release number.
const Release = "0.34.0"
