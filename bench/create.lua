-- wrk script: POST a new object per request (unique names per thread).
-- The body is a ConfigMap, or the JSON of the file named by $BENCH_BODY
-- with its first "@NAME@" replaced by the name (custom resources and
-- ConfigMaps of the same size).  Used by bench/run for the CREATE figures.

local counter = 0
local threads = {}

function setup(thread)
    thread:set("tid", #threads)
    table.insert(threads, thread)
end

function init(args)
    prefix = "c" .. tid .. "-" .. tostring(os.time()) .. "-"
    local path = os.getenv("BENCH_BODY")
    if path then
        local f = assert(io.open(path, "r"))
        template = f:read("*a")
        f:close()
    end
end

request = function()
    counter = counter + 1
    local body
    if template then
        body = template:gsub("@NAME@", prefix .. counter, 1)
    else
        body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"'
            .. prefix .. counter .. '","labels":{"app":"bench"}},'
            .. '"data":{"key":"value","n":"' .. counter .. '"}}'
    end
    return wrk.format("POST", nil,
        {["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
    if status ~= 201 then
        errors = (errors or 0) + 1
    end
end
