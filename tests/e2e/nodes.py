"""What the two node harnesses share (evm_node.py: anvil; btc_node.py:
litecoind in regtest).

Python 3, standard library only.  RpcError, a node's answer to a JSON-RPC
call that failed; batch_results(), the results of a batch in the order of
its calls; replay_rules(), the "rules" of the `hashjack replay` document
that each node's export() writes.
"""

from procs import HarnessError


class RpcError(HarnessError):
    def __init__(self, method, error):
        super().__init__("%s: %s" % (method, error))
        self.method = method
        self.error = error


def batch_results(calls, resp, base):
    """The results of a JSON-RPC batch reply resp (in any order) to calls
    [(method, params)] sent with ids base, base + 1, ...; RpcError for the
    first call that failed."""
    by_id = {x["id"]: x for x in resp}
    out = []
    for i, (m, _) in enumerate(calls):
        x = by_id[base + i]
        if x.get("error"):
            raise RpcError(m, x["error"])
        out.append(x.get("result"))
    return out


def replay_rules(min_bet, max_bet, timeout_blocks=None, preset=None, keys=None):
    """The "rules" of a `hashjack replay` document: the bets as decimal
    strings; preset and timeout_blocks left out when None; keys: rule keys
    over the preset's ({"perfect_pairs": "25,12,5", ...}, docs/CONFIG.md),
    each written as text."""
    rules = {}
    if preset is not None:
        rules["preset"] = preset
    rules["min_bet"] = str(min_bet)
    rules["max_bet"] = str(max_bet)
    if timeout_blocks is not None:
        rules["timeout_blocks"] = timeout_blocks
    for k, v in (keys or {}).items():
        rules[k] = str(v)
    return rules
