-- errors.lua - Lua errors, which the C code raises with longjmp
-- (luaD_throw) to the setjmp of the nearest protected call: error() with
-- strings and tables, runtime errors from the VM, errors rethrown through
-- nested pcalls, xpcall with a message handler, errors thrown from a
-- comparator inside table.sort (a longjmp across C frames of ltablib.c).
--   lua errors.lua N     (N scales the work)
-- Prints a checksum, then "count pcall P" (pcall/xpcall calls made) and
-- "count throw T" (errors raised, each one luaD_throw).
local n = tonumber(arg[1]) or 1
local pcalls, throws = 0, 0

local function p(...)
  pcalls = pcalls + 1
  return pcall(...)
end

local function fail(depth, v)
  if depth == 0 then
    throws = throws + 1
    error(v)
  end
  return fail(depth - 1, v) + 1   -- not a tail call: frames pile up
end

local function runtime_error(t)
  throws = throws + 1
  return t.missing.field          -- indexing nil: luaG_typeerror
end

-- Each level catches the error below it and raises a new one.
local function nested(level)
  if level == 0 then
    throws = throws + 1
    error("bottom", 0)
  end
  local ok, e = p(nested, level - 1)
  throws = throws + 1
  error(e .. "<" .. level, 0)
end

local function handler(e)
  return "handled:" .. tostring(e)
end

local h = 0
local function mix(s)
  for i = 1, #s do h = (h * 31 + s:byte(i)) & 0xffffffff end
end

for i = 1, n do
  local ok, e = p(fail, i % 20, "string error " .. i)
  mix(tostring(ok) .. e)
  ok, e = p(fail, 5, { code = i })
  mix(tostring(ok) .. e.code)
  ok, e = p(runtime_error, {})
  mix(tostring(ok) .. e)
  ok, e = p(nested, 1 + i % 6)
  mix(tostring(ok) .. e)
  pcalls = pcalls + 1
  ok, e = xpcall(fail, handler, 3, "x" .. i)
  mix(tostring(ok) .. e)
  ok, e = p(table.sort, { 3, 1, 2, 5, 4 }, function(a, b)
    if a == 5 or b == 5 then throws = throws + 1; error("cmp", 0) end
    return a < b
  end)
  mix(tostring(ok) .. e)
  ok, e = p(function(x) return x * 2 end, i)   -- no error
  mix(tostring(ok) .. e)
end
print(string.format("errors n=%d hash=%08x", n, h))
print("count pcall " .. pcalls)
print("count throw " .. throws)
