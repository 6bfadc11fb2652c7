"""The language's built-in vocabulary: causes, names, functions, quantifiers, reaction names,
hook words and check events, with their types and the contexts they may be used in. The analysis
(``analysis``) types expressions with it; the reuse expansion (``reuse``) checks definitions
against it; editors complete from it."""

from __future__ import annotations

BUILTIN_CAUSES = ("vote", "moderator")
MAX_TABLE = 100
CHECK_EVENTS = ("dawn", "dusk", "vote", "moderator", "death")
CHOOSE_KINDS = ("role", "team")
# what the moderator may choose (`moderator chooses r: KIND`), and the type of the value
MODERATOR_KINDS = {"seat": "seat", "role": "role", "team": "team", "number": "int"}

# name -> type, and the contexts where it is available
BUILTIN_NAMES = {
    "self": ("seat", {"ability", "trigger", "trial", "card"}),
    "true": ("bool", {"ability", "trigger", "trial", "card", "win", "day", "vote", "invariant"}),
    "false": ("bool", {"ability", "trigger", "trial", "card", "win", "day", "vote", "invariant"}),
    "alive": ("int", {"ability", "trigger", "trial", "win", "day", "vote"}),
    "players": ("int", {"ability", "trigger", "trial", "win", "day", "vote", "invariant"}),
    "night": ("int", {"ability", "trigger", "trial", "win", "day", "vote"}),
    "day": ("int", {"ability", "trigger", "trial", "win", "day", "vote"}),
    "chaos": ("bool", {"ability", "trigger", "trial", "win", "day", "vote"}),
    "defenders": ("int", {"vote", "ability"}),
    "skips": ("int", {"vote", "day", "win", "ability"}),
}
RUNTIME = {"ability", "trigger", "trial", "win", "day", "vote", "card", "hook"}
# where `random(x: ...)` may draw: statements run once when they run, never a condition the
# engine may evaluate any number of times (target filters, `when`, wins, vote rules)
DRAWING = {"ability", "trigger", "card", "hook"}
for _name, (_t, _ctxs) in list(BUILTIN_NAMES.items()):
    if "ability" in _ctxs:
        _ctxs.add("card")
    if "trigger" in _ctxs and _name != "self":
        _ctxs.add("hook")  # a top-level hook: everything a trigger reads but `self`
# names a reaction binds (as locals of its body): name -> (type, where it is available)
REACTION_NAMES = {
    "visitor": ("seat", "in `on visited`"),
    "blocker": ("seat", "in `on blocked`"),
    "nominator": ("seat", "in `on nominated`"),
    "attacker": ("seat", "in the reaction block of a `guard` (`guard x from CAUSE { ... }`)"),
    "victim": ("seat", "in a death trigger (`on death`, `on any death`)"),
    "killer": ("seat", "in a death trigger (`on death`, `on any death`)"),
    "cause": ("cause", "in a death trigger (`on death`, `on any death`)"),
}
DEATH_SCOPE = {"victim": "seat", "killer": "seat", "cause": "cause"}
HOOK_WORDS = {
    "night_start": "on night start",
    "night_end": "on night end",
    "dawn": "on dawn",
    "day_start": "on day start",
    "day_end": "on day end",
}
# function -> (argument types (a trailing "?" marks optional), result type, contexts)
BUILTIN_FUNCS = {
    "alive": (("seat",), "bool", RUNTIME),
    "role": (("seat",), "role", RUNTIME),
    "team": (("seat",), "team", RUNTIME),
    "living": (("team",), "int", RUNTIME),
    "living_role": (("role",), "int", RUNTIME),
    "has": (("seat", "mark"), "bool", RUNTIME),
    "acted": (("ability", "role?"), "bool", {"ability", "trigger"}),
    "recall": (("memslot",), "seat", {"ability", "trigger", "trial"}),
    "count_team": (("team",), "int", RUNTIME | {"invariant"}),
    "count_role": (("role",), "int", RUNTIME | {"invariant"}),
    # kinds of role (`kind ID`; a role without one has no kind)
    "kind": (("seat",), "kind", RUNTIME),
    "count_kind": (("kind",), "int", RUNTIME | {"invariant"}),
    "max_count": (("kind",), "int", RUNTIME | {"invariant"}),
    "used": (("ability",), "int", {"ability", "trigger"}),
    "doomed": (("seat",), "bool", {"ability", "trigger"}),
    "in_middle": (("role",), "int", RUNTIME),
    "departed": (("team",), "int", RUNTIME),
    "defending": (("seat",), "bool", RUNTIME),
    "left": (("seat",), "seat", RUNTIME),
    "right": (("seat",), "seat", RUNTIME),
    "pick": (("bool", "int", "int"), "int", RUNTIME | {"invariant"}),
    "min": (("int", "int"), "int", RUNTIME | {"invariant"}),
    "max": (("int", "int"), "int", RUNTIME | {"invariant"}),
    "clamp": (("int", "int", "int"), "int", RUNTIME | {"invariant"}),
    # rounding: `/` inside is exact (a fraction), the result is rounded to an int
    "floor": (("int",), "int", RUNTIME | {"invariant"}),
    "ceil": (("int",), "int", RUNTIME | {"invariant"}),
    "round": (("int",), "int", RUNTIME | {"invariant"}),
    # visits (recorded while a night resolves) and blocks
    "visitors": (("seat",), "seats", RUNTIME),
    "visits": (("seat",), "seats", RUNTIME),
    "count": (("seats",), "int", RUNTIME),
    "blocked": (("seat",), "bool", RUNTIME),
    # the most recent day vote: did the first seat vote against the second?
    "voted": (("seat", "seat"), "bool", RUNTIME),
    # the cause of a seat's death (no cause while it is alive)
    "cause_of": (("seat",), "cause", RUNTIME),
}

# seat quantifiers `F(x: COND)` over the living seats, and their result types
QUANTIFIERS = {
    "count": "int",
    "some": "bool",
    "every": "bool",
    "random": "seat",
}  # random: a living seat drawn among those COND accepts
