"""ndma's exceptions: one class per kind of failure the Go core reports."""


class Error(Exception):
    """Base of every ndma exception."""


class ValidationError(Error, ValueError):
    """Words break their generation's rules.

    ``problems`` lists each broken rule (its ``predicate``, ``field``,
    ``value``, ``want``); ``diagnostics`` the assembler's located lines.
    """

    def __init__(self, message, problems=(), diagnostics=()):
        super().__init__(message)
        self.problems = list(problems)
        self.diagnostics = list(diagnostics)


class AsmError(Error, ValueError):
    """Assembly text that does not assemble: ``diagnostics`` are file:line:col."""

    def __init__(self, message, diagnostics=()):
        super().__init__(message)
        self.diagnostics = list(diagnostics)


class InputError(Error, ValueError):
    """An argument or input refused; ``name`` is the one at fault."""

    def __init__(self, message, name=""):
        super().__init__(message)
        self.name = name


class OOBError(Error, IndexError):
    """An access out of bounds: ``lane``, ``rule`` and ``address`` where known."""

    def __init__(self, message, lane=-1, rule="", address=None, mnemonic=""):
        super().__init__(message)
        self.lane = lane
        self.rule = rule
        self.address = address
        self.mnemonic = mnemonic


class DeadlockError(Error):
    """No stream can progress; ``blocked`` has a line per blocked stream."""

    def __init__(self, message, blocked=()):
        super().__init__(message)
        self.blocked = list(blocked)


class DivergenceError(Error):
    """The reference and the engines (exec="both") disagree."""


class NKIError(Error, RuntimeError):
    """An NKI call the target's rules refuse, or a malformed kernel: the
    message names the call and its source line (``call``, ``file``, ``line``)."""

    def __init__(self, message, call="", file="", line=0):
        super().__init__(message)
        self.call, self.file, self.line = call, file, line


class NotFoundError(Error, FileNotFoundError):
    """A file that does not exist."""


def from_go(e):
    kind, msg = e.get("kind", "error"), e.get("message", "")
    if kind == "validation":
        return ValidationError(msg, e.get("problems") or [], e.get("diagnostics") or [])
    if kind == "syntax":
        return AsmError(msg, e.get("diagnostics") or [])
    if kind == "input":
        return InputError(msg, e.get("name", ""))
    if kind == "oob":
        return OOBError(msg, e.get("lane", -1), e.get("rule", ""), e.get("address"), e.get("mnemonic", ""))
    if kind == "nki":
        return NKIError(msg, e.get("call", ""), e.get("file", ""), e.get("line", 0))
    if kind == "deadlock":
        return DeadlockError(msg, e.get("blocked") or [])
    if kind == "divergence":
        return DivergenceError(msg)
    if kind == "notfound":
        return NotFoundError(msg)
    if kind == "panic":
        err = Error(msg)
        err.go_stack = e.get("stack", "")
        return err
    return Error(msg)
