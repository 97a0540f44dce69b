"""The Python functions and the command line run the same jobs with the same defaults: every
option of a job is a keyword of its function, and every keyword with a default gives the job's
own default (which the command line shows in its help)."""

import inspect

import pytest

import reusesim
from reusesim import JOB_DEFAULTS

#: Each function with its job, and the keywords named differently from the job's option.
FUNCTIONS = [
    (reusesim.evaluate, "evaluate", {}),
    (reusesim.compare, "compare", {}),
    (reusesim.agree, "agree", {}),
    (reusesim.simulate, "simulate", {}),
    (reusesim.judge, "judge", {}),
    (reusesim.complete, "complete", {}),
    (reusesim.audit, "audit", {}),
    (reusesim.backtest, "backtest", {}),
    (reusesim.StudyResult.plot, "plot", {"out": "out_dir"}),
]


def flattened(options: dict) -> dict:
    """A job's options with the nested groups (the judge's) flattened."""
    flat = {}
    for name, value in options.items():
        if isinstance(value, dict):
            flat.update(flattened(value))
        else:
            flat[name] = value
    return flat


def as_list(value):
    return [value] if isinstance(value, str) else list(value)


@pytest.mark.parametrize("function, job, renamed", FUNCTIONS, ids=[job for _, job, _ in FUNCTIONS])
def test_every_option_of_the_job_is_a_keyword_with_the_jobs_default(function, job, renamed):
    parameters = inspect.signature(function).parameters
    for option, default in flattened(JOB_DEFAULTS[job]).items():
        keyword = renamed.get(option, option)
        assert keyword in parameters, f"{function.__qualname__} lacks the job's option {option}"
        given = parameters[keyword].default
        if given is None or given is inspect.Parameter.empty:
            continue  # the job's default applies
        if option == "measures":
            given, default = as_list(given), as_list(default)
        if option == "leave_out":
            given = list(given)
        assert given == default, f"{function.__qualname__}({keyword}={given!r}): the job's default is {default!r}"


def test_the_defaults_are_the_command_lines():
    # A few defaults as the command line documents them (docs/simulate.md, docs/audit.md).
    assert JOB_DEFAULTS["simulate"]["seeds"] == 10
    assert JOB_DEFAULTS["simulate"]["measures"] == ["map,P_10,ndcg_cut_10"]
    assert JOB_DEFAULTS["simulate"]["judge"]["iterations"] == 200_000
    assert JOB_DEFAULTS["backtest"]["world"] == "classic"
    assert JOB_DEFAULTS["audit"]["beyond_pool"] == "non-relevant"
    assert JOB_DEFAULTS["compare"]["test"] == "t"
    assert JOB_DEFAULTS["compare"]["correction"] == "none"
    assert JOB_DEFAULTS["compare"]["seed"] == 1
    assert JOB_DEFAULTS["agree"]["measures"] == ["map,P_10,ndcg_cut_10"]
    assert JOB_DEFAULTS["agree"]["relevance_level"] is None
    assert JOB_DEFAULTS["simulate"]["significance"] == "t,holm"
    assert JOB_DEFAULTS["simulate"]["alpha"] == 0.05
