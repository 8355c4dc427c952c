/*
 * The node a configuration names: the JSON-RPC client's options (endpoint,
 * credentials, limits) and the family's backend over a client.  hashjackd
 * (the follower and the payers) and `hashjack verify` open it alike.
 */
#ifndef HJD_NODE_H
#define HJD_NODE_H

#include <stddef.h>

#include "backend.h"
#include "config.h"
#include "rpc.h"

/* The client options of cfg's [chain] keys over hj_rpc_opts_default;
 * strings borrowed from cfg. */
void hjd_node_rpc_opts(const hjd_config *cfg, hj_rpc_opts *o);

/* The family's backend over rpc for cfg's dealer; NULL with err. */
hj_backend *hjd_node_backend(const hjd_config *cfg, hj_rpc *rpc, char *err,
                             size_t errlen);

#endif
