-- workload.lua - the Lua workload of bench/run.sh: the interpreter's C
-- functions (the VM loop, table, string and garbage-collector code, the
-- standard library) called the way an ordinary script calls them.
--
--   lua workload.lua [SIZE [nothrow]]      (default 100)
--
-- SIZE rounds of: recursion (fib), closures and method calls over tables,
-- string building, formatting and pattern matching, table inserts, sorts and
-- concatenation, and pcall/error. The work, so the events a tracer records,
-- grows linearly with SIZE. Prints one checksum line, the same for every
-- build of the interpreter.
--
-- nothrow leaves pcall/error out (bench/views.sh): error() leaves C frames
-- with longjmp, which uftrace --no-libcall cannot see, so its depth only
-- grows and it stops recording at 1024 (~740000 events whatever SIZE).

local size = tonumber(arg and arg[1]) or 100
local nothrow = arg and arg[2] == "nothrow"

local function fib(n)
	if n < 2 then return n end
	return fib(n - 1) + fib(n - 2)
end

local Point = {}
Point.__index = Point
function Point.new(x, y) return setmetatable({ x = x, y = y }, Point) end
function Point:add(o) return Point.new(self.x + o.x, self.y + o.y) end
function Point:len2() return self.x * self.x + self.y * self.y end

local function strings(r)
	local parts = {}
	for i = 1, 40 do
		parts[#parts + 1] = string.format("%d:%s", i * r, tostring(i % 7))
	end
	local s = table.concat(parts, ",")
	local n = 0
	for a, b in s:gmatch("(%d+):(%d)") do n = n + #a + tonumber(b) end
	return n + #s:upper() + (s:find("13:", 1, true) or 0)
end

local function tables(r)
	local t = {}
	for i = 1, 60 do t[i] = (i * 7919 + r) % 101 end
	table.sort(t)
	local m = {}
	for i, v in ipairs(t) do m["k" .. v] = i end
	local c = 0
	for _, v in pairs(m) do c = c + v end
	table.remove(t, 1)
	table.insert(t, 1, r)
	return c + #t
end

local function risky(i)
	if i % 5 == 0 then error("five") end
	return i
end

local function errors(r)
	local ok, n = 0, 0
	for i = 1, 20 do
		local good, v = pcall(risky, i + r)
		if good then ok = ok + v else n = n + 1 end
	end
	return ok + n
end

local sum = 0
for r = 1, size do
	sum = sum + fib(12)
	local p = Point.new(0, 0)
	for i = 1, 30 do p = p:add(Point.new(i, r)) end
	sum = sum + p:len2() % 1000
	sum = sum + strings(r) + tables(r) + (nothrow and 0 or errors(r))
	sum = sum % 1000000007
end
print(string.format("workload.lua size %d checksum %d", size, sum))
