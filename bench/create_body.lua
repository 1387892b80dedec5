-- wrk script: POST the JSON body of the file named by $BENCH_BODY, its
-- "@NAME@" replaced by a name unique per request and thread.  Used by
-- bench/run to create custom resources and ConfigMaps of the same size.

local counter = 0
local threads = {}

function setup(thread)
    thread:set("tid", #threads)
    table.insert(threads, thread)
end

function init(args)
    prefix = "b" .. tid .. "-" .. tostring(os.time()) .. "-"
    local f = assert(io.open(os.getenv("BENCH_BODY"), "r"))
    template = f:read("*a")
    f:close()
end

request = function()
    counter = counter + 1
    local body = template:gsub("@NAME@", prefix .. counter, 1)
    return wrk.format("POST", nil,
        {["Content-Type"] = "application/json"}, body)
end

function response(status, headers, body)
    if status ~= 201 then
        errors = (errors or 0) + 1
    end
end
