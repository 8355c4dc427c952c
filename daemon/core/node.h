/*
 * The node a configuration names: the JSON-RPC client's options (endpoint,
 * credentials, limits) and the family's backend over a client.  hashjackd
 * (the follower and the payers) and `hashjack verify` open it alike.
 */
#ifndef HJ_NODE_H
#define HJ_NODE_H

#include <stddef.h>

#include "backend.h"
#include "config.h"
#include "rpc.h"

/* The client options of cfg's [chain] keys over hj_rpc_opts_default;
 * strings borrowed from cfg. */
void hj_node_rpc_opts(const hj_config *cfg, hj_rpc_opts *o);

/* The family's backend over rpc for cfg's dealer: 0 with *out, or the
 * backend constructor's negative errno with err and *out NULL. */
int hj_node_backend_new(const hj_config *cfg, hj_rpc *rpc, hj_backend **out,
                        char *err, size_t errlen);

/* The family's backend operations, for what they say before any node is
 * asked (push_how: hashjackd --check-config). */
const struct hj_backend_ops *hj_node_backend_ops(const hj_config *cfg);

#endif
