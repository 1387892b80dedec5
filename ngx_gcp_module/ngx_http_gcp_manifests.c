
/*
 * Bootstrap manifests in the adapter: the gcp_manifests directive reads
 * the folder's files when the configuration is read (at start and on
 * every reload, so that "nginx -t" sees a folder it cannot read), and the
 * worker that runs the API server's controllers applies them
 * (gcp_manifests.h), its reports going to the error log.
 */

#include "ngx_http_gcp_module.h"
#include "gcp_manifests.h"


#define NGX_HTTP_GCP_MANIFEST_MAX  (16 * 1024 * 1024)


/*
 * Reads file (made absolute) into out, NUL-terminated, at most max bytes.
 * Returns NGX_CONF_OK, or an error already logged.
 */

char *
ngx_http_gcp_read_conf_file(ngx_conf_t *cf, ngx_str_t *file, size_t max,
    ngx_str_t *out)
{
    u_char           *p;
    ssize_t           n;
    ngx_fd_t          fd;
    ngx_file_info_t   fi;

    if (ngx_conf_full_name(cf->cycle, file, 1) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    fd = ngx_open_file(file->data, NGX_FILE_RDONLY, NGX_FILE_OPEN, 0);
    if (fd == NGX_INVALID_FILE) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, ngx_errno,
                           ngx_open_file_n " \"%V\" failed", file);
        return NGX_CONF_ERROR;
    }

    if (ngx_fd_info(fd, &fi) == NGX_FILE_ERROR) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, ngx_errno,
                           ngx_fd_info_n " \"%V\" failed", file);
        ngx_close_file(fd);
        return NGX_CONF_ERROR;
    }

    if ((size_t) ngx_file_size(&fi) > max) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "\"%V\" is larger than %uz bytes", file, max);
        ngx_close_file(fd);
        return NGX_CONF_ERROR;
    }

    p = ngx_pnalloc(cf->pool, ngx_file_size(&fi) + 1);
    if (p == NULL) {
        ngx_close_file(fd);
        return NGX_CONF_ERROR;
    }

    n = ngx_read_fd(fd, p, ngx_file_size(&fi));
    ngx_close_file(fd);

    if (n != (ssize_t) ngx_file_size(&fi)) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, ngx_errno,
                           ngx_read_fd_n " \"%V\" failed", file);
        return NGX_CONF_ERROR;
    }

    p[n] = '\0';

    out->data = p;
    out->len = n;

    return NGX_CONF_OK;
}


/* kubectl's extensions for the files of a folder given to -f */

static ngx_int_t
ngx_http_gcp_manifest_name(ngx_str_t *name)
{
    static ngx_str_t  ext[] = {
        ngx_string(".yaml"), ngx_string(".yml"), ngx_string(".json")
    };

    ngx_uint_t  i;

    if (name->len == 0 || name->data[0] == '.') {
        return 0;
    }

    for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
        if (name->len > ext[i].len
            && ngx_strncmp(name->data + name->len - ext[i].len, ext[i].data,
                           ext[i].len) == 0)
        {
            return 1;
        }
    }

    return 0;
}


static int ngx_libc_cdecl
ngx_http_gcp_manifest_cmp(const void *one, const void *two)
{
    const gcp_manifest_file_t  *a = one, *b = two;

    return ngx_strcmp(a->name, b->name);
}


/*
 * gcp_manifests DIR;
 *
 * The regular files of DIR named *.yaml, *.yml or *.json (not those of
 * its subfolders), in the order of their names, as "kubectl apply -f DIR".
 */

char *
ngx_http_gcp_manifests(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_gcp_main_conf_t *mcf = conf;

    u_char               *p;
    ngx_dir_t             dir;
    ngx_str_t            *value, path, name, file, data;
    gcp_manifest_file_t  *f;

    if (mcf->manifests) {
        return "is duplicate";
    }

    value = cf->args->elts;
    path = value[1];

    if (ngx_conf_full_name(cf->cycle, &path, 1) != NGX_OK) {
        return NGX_CONF_ERROR;
    }

    mcf->manifests = ngx_array_create(cf->pool, 8,
                                      sizeof(gcp_manifest_file_t));
    if (mcf->manifests == NULL) {
        return NGX_CONF_ERROR;
    }

    if (ngx_open_dir(&path, &dir) == NGX_ERROR) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, ngx_errno,
                           ngx_open_dir_n " \"%V\" failed", &path);
        return NGX_CONF_ERROR;
    }

    for ( ;; ) {
        ngx_set_errno(0);

        if (ngx_read_dir(&dir) == NGX_ERROR) {
            if (ngx_errno != NGX_ENOMOREFILES) {
                ngx_conf_log_error(NGX_LOG_EMERG, cf, ngx_errno,
                                   ngx_read_dir_n " \"%V\" failed", &path);
                ngx_close_dir(&dir);
                return NGX_CONF_ERROR;
            }

            break;
        }

        name.data = ngx_de_name(&dir);
        name.len = ngx_de_namelen(&dir);

        if (!ngx_http_gcp_manifest_name(&name)) {
            continue;
        }

        file.len = path.len + 1 + name.len;
        file.data = ngx_pnalloc(cf->pool, file.len + 1);
        if (file.data == NULL) {
            ngx_close_dir(&dir);
            return NGX_CONF_ERROR;
        }

        p = ngx_cpymem(file.data, path.data, path.len);
        *p++ = '/';
        *ngx_cpymem(p, name.data, name.len) = '\0';

        if (ngx_de_info(file.data, &dir) == NGX_FILE_ERROR) {
            ngx_conf_log_error(NGX_LOG_EMERG, cf, ngx_errno,
                               ngx_de_info_n " \"%V\" failed", &file);
            ngx_close_dir(&dir);
            return NGX_CONF_ERROR;
        }

        if (!ngx_de_is_file(&dir)) {
            continue;
        }

        if (ngx_http_gcp_read_conf_file(cf, &file, NGX_HTTP_GCP_MANIFEST_MAX,
                                        &data)
            != NGX_CONF_OK)
        {
            ngx_close_dir(&dir);
            return NGX_CONF_ERROR;
        }

        f = ngx_array_push(mcf->manifests);
        if (f == NULL) {
            ngx_close_dir(&dir);
            return NGX_CONF_ERROR;
        }

        f->name = (const char *) file.data;
        f->data = (const char *) data.data;
        f->len = data.len;
    }

    ngx_close_dir(&dir);

    ngx_qsort(mcf->manifests->elts, mcf->manifests->nelts,
              sizeof(gcp_manifest_file_t), ngx_http_gcp_manifest_cmp);

    return NGX_CONF_OK;
}


static void
ngx_http_gcp_manifests_report(void *arg, int error, const char *msg)
{
    ngx_uint_t  level;

    level = error ? NGX_LOG_ERR : NGX_LOG_NOTICE;

    ngx_log_error(level, ngx_cycle->log, 0, "%s", msg);
}


void
ngx_http_gcp_manifests_start(ngx_http_gcp_main_conf_t *mcf)
{
    if (mcf->manifests == NULL || mcf->manifests_run != NULL) {
        return;
    }

    mcf->manifests_run = gcp_manifests_start(mcf->api,
                                             mcf->manifests->elts,
                                             mcf->manifests->nelts,
                                             ngx_http_gcp_manifests_report,
                                             NULL);

    if (mcf->manifests_run == NULL) {
        ngx_log_error(NGX_LOG_ALERT, ngx_cycle->log, 0,
                      "gcp_manifests: out of memory");
    }
}


void
ngx_http_gcp_manifests_stop(ngx_http_gcp_main_conf_t *mcf)
{
    gcp_manifests_stop(mcf->manifests_run);
    mcf->manifests_run = NULL;
}
