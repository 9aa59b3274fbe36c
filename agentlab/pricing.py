"""Tokens -> US dollars, from genai-prices (a maintained database of model prices).

- `price_per_million(model)`: a model's input and output prices, per million tokens.
- `estimate_cost(response)`: what one chat response cost, from the usage the API reported.
- `reprice(run, model)`: what a finished run would have cost at another model's prices.
- `count_tokens`, `message_tokens`: the offline tutor's token rule, for views that split a
  prompt into its parts (one rule for every client and the server: tutor/tokens.py).
The budget that spends these dollars is a guardrail: guardrails.Budget.

Prompt tokens before a call are bounded from above without a tokenizer (guardrails.Budget's
look-ahead): the previous call's whole prompt as its usage reported it (prompt_tokens, plus
cached_tokens for an API that counts cache hits apart), plus the UTF-8 bytes of every message
added since (a token is never shorter than one byte in the byte-level tokenizers chat models
use) and a few tokens per message. The first call is bounded by bytes alone. The completion is
bounded by the max-tokens cap, which OpenAI's reasoning models spend their reasoning tokens
within.

When the bound does not hold (the README says so, and notebook 04b teaches it): an API that
leaves a cache hit's tokens out of both prompt_tokens and cached_tokens (then a miss can cost
more than the look-ahead allowed), one that bills reasoning or other hidden tokens beyond the
max-tokens cap, or a tokenizer that is not byte-level. Then the run stops at once with max_cost
and says by how much the API billed more than the look-ahead allowed (overspent).

Left out on purpose: cached-input discounts (we charge the full input price, an upper bound),
and live price updates (genai-prices' bundled snapshot is used, so figures are reproducible).
"""

from __future__ import annotations

import dataclasses
import functools
import math

from .tutor.tokens import count_tokens, message_tokens

__all__ = ["Price", "Unpriceable", "cost_usd", "estimate_cost", "price_per_million", "reprice",
           "reported_tokens", "token_count", "whole_prompt", "count_tokens", "message_tokens"]


class Unpriceable(Exception):
    """A model or response whose cost cannot be known; the budget treats it as over budget."""


@dataclasses.dataclass(frozen=True)
class Price:
    """US dollars per million input and output tokens."""

    input_per_mtok: float
    output_per_mtok: float
    model: str = "custom"

    def __post_init__(self):
        """Checked like Limits: a NaN price would make every budget comparison false (the call
        goes through, its cost nan); a negative one would hand money back to the budget."""
        for name in ("input_per_mtok", "output_per_mtok"):
            value = getattr(self, name)
            if (not isinstance(value, (int, float)) or isinstance(value, bool)
                    or not math.isfinite(value) or value < 0):
                raise ValueError(f"Price.{name} must be a finite number of US dollars per "
                                 f"million tokens, 0 or more, not {value!r}")

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        dollars = prompt_tokens * self.input_per_mtok + completion_tokens * self.output_per_mtok
        return dollars / 1e6


def cost_usd(priced_as, prompt_tokens: int, completion_tokens: int) -> float:
    """What these tokens cost at `priced_as`'s prices (a model name, or a Price).

    A model name is priced from genai-prices' entry for it. Where that entry is tiered (the
    price depends on the prompt's length), genai-prices prices these exact counts, so the
    right tier is charged.
    """
    return _trusted(_cost(priced_as, prompt_tokens, completion_tokens), priced_as)


def _cost(priced_as, prompt_tokens: int, completion_tokens: int) -> float:
    if isinstance(priced_as, Price):
        return priced_as.cost(prompt_tokens, completion_tokens)
    flat = _flat_price(str(priced_as))
    if flat is not None:
        return flat.cost(prompt_tokens, completion_tokens)
    from genai_prices import Usage, calc_price

    calc = calc_price(Usage(input_tokens=prompt_tokens, output_tokens=completion_tokens),
                      model_ref=str(priced_as))
    return float(calc.total_price)


def _trusted(dollars, priced_as) -> float:
    """A cost the budget can compare: a finite number, 0 or more. Anything else (a price
    changed after it was checked, a database entry gone wrong) is Unpriceable, so the budget
    fails closed.

    Example: _trusted(0.0012, "gpt-4o-mini") -> 0.0012; _trusted(nan, ...) -> Unpriceable
    """
    if (not isinstance(dollars, (int, float)) or isinstance(dollars, bool)
            or not math.isfinite(dollars) or dollars < 0):
        raise Unpriceable(f"the price of {getattr(priced_as, 'model', priced_as)!s} gave a "
                          f"cost of {dollars!r}, not a finite number of dollars, 0 or more")
    return float(dollars)


@functools.lru_cache(maxsize=256)
def _flat_price(model: str) -> Price | None:
    """The model's genai-prices entry as a Price if it is flat, None if tiered.

    Looked up once per model: genai-prices takes a few hundred microseconds a lookup, which
    would otherwise be paid twice on every step of the loop.
    """
    from decimal import Decimal

    from genai_prices import (  # slow to import: only when a price is needed
        Usage,
        calc_price,
    )

    try:
        calc = calc_price(Usage(input_tokens=1, output_tokens=1), model_ref=model)
    except LookupError as e:
        raise Unpriceable(f"genai-prices has no price for model {model!r} ({e}); pass "
                          "priced_as='<a model it knows>' or priced_as=Price(...) to "
                          "connect()") from None
    entry = calc.model_price
    if isinstance(entry.input_mtok, Decimal) and isinstance(entry.output_mtok, Decimal):
        return Price(float(entry.input_mtok), float(entry.output_mtok), calc.model.id)
    return None


@functools.lru_cache(maxsize=256)
def price_per_million(model: str) -> Price:
    """A model's list price per million tokens (its base tier), for tables and labels."""
    return Price(cost_usd(model, 1000, 0) * 1000, cost_usd(model, 0, 1000) * 1000, model)


def estimate_cost(response) -> float:
    """The US dollars one chat response cost, from its reported usage and its model's price.

    Works on agentlab's Response (priced as its client says) and on a raw SDK ChatCompletion
    (priced as its `model`). Raises Unpriceable when its usage is missing or not counts
    of tokens (reported_tokens).
    """
    prompt_tokens, completion_tokens = reported_tokens(getattr(response, "usage", None))
    priced_as = getattr(response, "priced_as", None) or response.model
    return cost_usd(priced_as, prompt_tokens, completion_tokens)


# More tokens than any response has (10**400 would not even fit in a float to be priced).
MOST_TOKENS = 10**12


def reported_tokens(usage) -> tuple[int, int]:
    """The prompt and completion tokens a response's usage reports, both counts of tokens.

    Raises Unpriceable for anything else: no usage, or a count that token_count refuses.
    Example: usage with prompt_tokens=85, completion_tokens=12 -> (85, 12)
             usage with completion_tokens=None or -5 or nan  -> Unpriceable
    """
    if usage is None:
        raise Unpriceable("the response reported no token usage, so its cost is unknown")
    return token_count(usage, "prompt_tokens"), token_count(usage, "completion_tokens")


def token_count(usage, field: str) -> int:
    """One count of a response's usage, if it is one: a whole number from zero to MOST_TOKENS
    (a negative count would hand money back to the budget, NaN would make every comparison
    with it false). Raises Unpriceable otherwise, a count left out included.

    Example: token_count(usage, "prompt_tokens") -> 85; with prompt_tokens=12.0 -> 12
    """
    value = getattr(usage, field, None)
    if isinstance(value, float) and value.is_integer():  # 12.0 is a count; nan, inf are not
        value = int(value)
    if (not isinstance(value, int) or isinstance(value, bool) or value < 0
            or value > MOST_TOKENS):
        said = (f"{field}={value!r}" if not isinstance(value, int) or value <= MOST_TOKENS
                else f"{field} over {MOST_TOKENS:,}")  # repr of 10**5000 would raise
        raise Unpriceable(f"the response reported {said}, not a count of tokens, so its "
                          "cost is unknown")
    return value


def whole_prompt(usage) -> int:
    """The prompt tokens a call sent, cached ones included, for the next call's look-ahead.

    OpenAI counts cached tokens inside prompt_tokens and names them again in
    prompt_tokens_details.cached_tokens; some APIs report only the uncached part as
    prompt_tokens on a cache hit, the cached part apart. Adding the two is right for the second
    kind and an overcount for the first (never an undercount): a look-ahead built on the
    uncached part alone let a cache miss, billed for the whole prompt, cross the budget.
    Example: prompt_tokens=90, cached_tokens=810 -> 900; prompt_tokens=900, no details -> 900
             cached_tokens=-5 -> Unpriceable
    """
    details = getattr(usage, "prompt_tokens_details", None)
    if getattr(details, "cached_tokens", None) is None:  # not reported: nothing to add
        return token_count(usage, "prompt_tokens")
    # a count that is not one (negative, NaN) raises Unpriceable: the budget fails closed
    return token_count(usage, "prompt_tokens") + token_count(details, "cached_tokens")


def reprice(run, priced_as) -> float:
    """What a finished run would have cost at another model's prices (same tokens, per step)."""
    return sum(cost_usd(priced_as, s.prompt_tokens, s.completion_tokens) for s in run.steps)
