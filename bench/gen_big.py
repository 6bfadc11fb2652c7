"""Generate a spec with N night abilities (default 400) for the checker's scale benchmark.

100 roles (N / 4), four abilities each: a mark, an inquiry that reads marks, a kill, a save.
Deliberate defects, each of which must be reported ONCE (not once per pair):
* every inquiry reads mark `spotted` (until dawn) at tier 10, but the only ability setting it
  resolves at tier 20: one K001 defect (one writer, many readers);
* `tagger.tag` sets mark `tagged` at tier 30, where every inquiry of the second half reads it
  (tier 30, no declared order): one K002 defect.
Usage: python bench/gen_big.py [N] > big.maf
"""
from __future__ import annotations

import sys


def spec(n: int = 400) -> str:
    roles = max(n // 4, 2)
    out = ["game big {", '  name fa "بزرگ" en "Big"', "  players 8..12", "  first night", "}",
           'team mafia { name fa "مافیا" en "Mafia" }', 'team city { name fa "شهر" en "City" }',
           "cause shot", "mark spotted until dawn", "mark tagged until dawn",
           "win city when living(mafia) == 0",
           "win mafia when living(mafia) >= alive - living(mafia)"]
    for i in range(roles):
        team = "mafia" if i < roles // 4 else "city"
        tier = 10 if i < roles // 2 else 30
        out += [f"role r{i} in {team} {{", f'  name fa "R{i}" en "R{i}"']
        if i == 0:
            out += ["  ability spot at night {", "    tier 20", "    target x: alive(x)",
                    "    mark x as spotted", "  }"]
        elif i == 1:
            out += ["  ability tag at night {", "    tier 30", "    target x: alive(x)",
                    "    mark x as tagged", "  }"]
        else:
            out += ["  ability note at night {", f"    tier {tier + 5}", "    target x: alive(x)",
                    f'    tell "noted {i}"', "  }"]
        read = "spotted" if tier == 10 else "tagged"
        out += ["  ability look at night {", f"    tier {tier}",
                "    target x: alive(x) and x != self",
                f'    if has(x, {read}) {{ tell "seen" }} else {{ tell "nothing" }}', "  }",
                "  ability hit at night {", f"    tier {50 + i % 7}",
                "    target x: alive(x) and x != self", "    kill x by shot", "  }",
                "  ability save at night {", f"    tier {60 + i % 5}", "    target x: alive(x)",
                "    protect x from shot", "  }", "}"]
    out.append('setup "any" 8..12: any where count_role(r0) == 1 and count_role(r1) == 1 and '
               "count_team(mafia) == players / 4")
    out.append("day { vote { threshold alive / 2 + 1 tie none } }")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(spec(int(sys.argv[1]) if len(sys.argv) > 1 else 400))
