
/*
 * The admission plugins compiled into the module, in the order the chain
 * runs them (kube-apiserver's order), and the chain of an API built from
 * the configuration: kube-apiserver's --enable-admission-plugins and
 * --disable-admission-plugins (gcp_admission_conf_t), each plugin with
 * its arguments.
 */

#ifndef _GCP_ADMISSION_PLUGINS_H_INCLUDED_
#define _GCP_ADMISSION_PLUGINS_H_INCLUDED_


#include "gcp_admission.h"


/*
 * Checks a configuration: every name known, none both enabled and
 * disabled, arguments only for known plugins and accepted by them.
 * Returns GCP_OK, or GCP_EBADREQUEST with a message in err (errlen
 * bytes).  conf NULL is the default configuration.
 */
int gcp_admission_plugins_check(const gcp_admission_conf_t *conf, char *err,
    size_t errlen);

/*
 * Builds api's chain: the enabled plugins, in the table's order.  Returns
 * GCP_OK, or an error with a message in err.
 */
int gcp_admission_plugins_setup(gcp_api_t *api,
    const gcp_admission_conf_t *conf, char *err, size_t errlen);

/*
 * Returns the table (*n entries), for listing the plugins (tests,
 * documentation).
 */
const gcp_admission_def_t *gcp_admission_plugins(size_t *n);


#endif /* _GCP_ADMISSION_PLUGINS_H_INCLUDED_ */
