-- wrk script: GET with the Accept header kubectl get sends (Table).
wrk.headers["Accept"] = "application/json;as=Table;v=v1;g=meta.k8s.io," ..
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
