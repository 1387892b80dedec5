-- wrk script: POST a new ConfigMap per request (unique names per thread).
-- Used by bench/run for the CREATE figure.

local counter = 0
local threads = {}

function setup(thread)
    thread:set("tid", #threads)
    table.insert(threads, thread)
end

function init(args)
    prefix = "c" .. tid .. "-" .. tostring(os.time()) .. "-"
end

request = function()
    counter = counter + 1
    local body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"'
        .. prefix .. counter .. '","labels":{"app":"bench"}},'
        .. '"data":{"key":"value","n":"' .. counter .. '"}}'
    return wrk.format("POST", nil,
        {["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
    if status ~= 201 then
        errors = (errors or 0) + 1
    end
end
