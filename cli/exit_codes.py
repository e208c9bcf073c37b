"""The one exit-code scheme of every `colabench` command, and the code an expected error maps to.

0 done as asked; 1 a crash or an expected error that is not bad input (no endpoint configured, Neo4j not
reachable, a port in use); 2 bad input (a file, line or field was rejected, nothing of it was written; or the
command line named something that is not there: an unknown method, run, batch or dataset, an option value
out of range, options that exclude each other);
3 an endpoint failure or a partial result (requests refused or failing after every retry, an invalid reply,
some attempts or judgments missing, a build or bundle that ended empty); 130 interrupted by Ctrl-C."""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_BAD_INPUT = 2
EXIT_ENDPOINT_OR_PARTIAL = 3
EXIT_INTERRUPTED = 130


def _endpoint_failure(exc: BaseException) -> bool:
    """Whether `exc` or an error in its cause chain is the endpoint's doing (a memory SDK wraps the client's
    error): an LLM error other than a configuration one, or an HTTP status an API client raised with."""
    from agents.llm.errors import LLMConfigError, LLMError, LLMInterruptedError

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, LLMError) and not isinstance(current, (LLMConfigError, LLMInterruptedError)):
            return True
        if isinstance(getattr(current, "status_code", None), int):
            return True
        if getattr(current, "endpoint_failure", False) is True:
            return True
        current = current.__cause__ or current.__context__
    return False


def exit_code_for(exc: BaseException) -> int:
    """The exit code of a command stopped by the expected error `exc`."""
    from graph.errors import BadInputError
    from ingest.errors import InputError

    if isinstance(exc, InputError | BadInputError):
        return EXIT_BAD_INPUT
    if _endpoint_failure(exc):
        return EXIT_ENDPOINT_OR_PARTIAL
    return EXIT_ERROR
