
/*
 * Unit test data shared by the flowcontrol tests: upstream's mandatory
 * and suggested priority levels as the dispatcher's configuration
 * (gcp_apf_shm_configure()).
 */

#ifndef _APF_LEVELS_H_INCLUDED_
#define _APF_LEVELS_H_INCLUDED_


#include "gcp_apf_shm.h"


/* upstream's suggested levels with the mandatory ones */
static const gcp_apf_level_conf_t  levels[] = {
    { "exempt", "u-exempt", 1, 0, 0, 0, 0, 0, -1 },
    { "catch-all", "u-ca", 0, 0, 0, 0, 5, 0, -1 },
    { "system", "u-sys", 0, 64, 6, 50, 30, 33, -1 },
    { "node-high", "u-nh", 0, 64, 6, 50, 40, 25, -1 },
    { "leader-election", "u-le", 0, 16, 4, 50, 10, 0, -1 },
    { "workload-high", "u-wh", 0, 128, 6, 50, 40, 50, -1 },
    { "workload-low", "u-wl", 0, 128, 6, 50, 100, 90, -1 },
    { "global-default", "u-gd", 0, 128, 6, 50, 20, 50, -1 },
};


#endif /* _APF_LEVELS_H_INCLUDED_ */
