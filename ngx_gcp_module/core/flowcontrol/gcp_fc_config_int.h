
/*
 * The compiled flowcontrol configuration (see gcp_fc_config.h), shared by
 * gcp_fc_config.c (building it) and gcp_fc_classify.c (matching).
 */

#ifndef _GCP_FC_CONFIG_INT_H_INCLUDED_
#define _GCP_FC_CONFIG_INT_H_INCLUDED_


#include "gcp_fc_config.h"


typedef enum {
    GCP_FC_SUBJECT_USER = 0,
    GCP_FC_SUBJECT_GROUP,
    GCP_FC_SUBJECT_SA
} gcp_fc_subject_kind_t;


typedef enum {
    GCP_FC_DM_NONE = 0,
    GCP_FC_DM_USER,
    GCP_FC_DM_NAMESPACE
} gcp_fc_dm_t;


/* A list of strings; all: it is exactly the wildcard ("*"). */
typedef struct {
    const char  **v;
    size_t        n;
    unsigned      all:1;
} gcp_fc_list_t;


typedef struct {
    gcp_fc_subject_kind_t   kind;
    const char             *name;
    const char             *ns;         /* service accounts */
} gcp_fc_subject_t;


typedef struct {
    gcp_fc_list_t   verbs;
    gcp_fc_list_t   groups;
    gcp_fc_list_t   resources;
    gcp_fc_list_t   namespaces;
    unsigned        cluster_scope:1;
} gcp_fc_rrule_t;


typedef struct {
    gcp_fc_list_t   verbs;
    gcp_fc_list_t   urls;
} gcp_fc_nrule_t;


typedef struct {
    gcp_fc_subject_t  *subjects;
    size_t             nsubjects;
    gcp_fc_rrule_t    *rrules;
    size_t             nrrules;
    gcp_fc_nrule_t    *nrules;
    size_t             nnrules;
} gcp_fc_policy_t;


typedef struct {
    const char        *name;
    const char        *uid;
    int64_t            precedence;
    gcp_fc_dm_t        dm;
    size_t             level;           /* index in levels */
    gcp_fc_policy_t   *rules;
    size_t             nrules;
} gcp_fc_schema_t;


struct gcp_fc_config_s {
    gcp_arena_t           *arena;
    gcp_fc_schema_t       *schemas;     /* by precedence, then name */
    size_t                 nschemas;
    gcp_apf_level_conf_t  *levels;
    size_t                 nlevels;
};


#endif /* _GCP_FC_CONFIG_INT_H_INCLUDED_ */
