/* The node a configuration names (node.h). */
#include "node.h"

#include <errno.h>
#include <stdio.h>

#include "btc_backend.h"
#include "evm_backend.h"
#include "say.h"

void hj_node_rpc_opts(const hj_config *cfg, hj_rpc_opts *o)
{
	hj_rpc_opts_default(o);
	o->url = cfg->rpc_url;
	o->user = cfg->rpc_user;
	o->password = cfg->rpc_password;
	o->bearer = cfg->rpc_bearer;
	o->cookie_file = cfg->rpc_cookie_file;
	o->ca_file = cfg->ca_file;
	o->timeout_ms = cfg->rpc_timeout_ms;
	o->max_response = cfg->rpc_max_response;
	o->max_batch = cfg->rpc_max_batch;
}

int hj_node_backend_new(const hj_config *cfg, hj_rpc *rpc, hj_backend **out,
                        char *err, size_t errlen)
{
	int rc = -EINVAL;

	*out = NULL;
	switch (cfg->family) {
	case HJ_EVM:
		rc = hj_evm_backend_new(rpc, &cfg->dealer, out);
		if (rc != 0)
			hj_say(err, errlen, "out of memory");
		break;
	case HJ_BITCOIN:
		rc = hj_btc_backend_new(rpc, cfg->coin, &cfg->dealer, out, err,
		                        errlen);
		break;
	}
	return rc;
}

const struct hj_backend_ops *hj_node_backend_ops(const hj_config *cfg)
{
	switch (cfg->family) {
	case HJ_EVM:
		return &hj_evm_backend_ops;
	case HJ_BITCOIN:
		return &hj_btc_backend_ops;
	}
	return NULL;
}
