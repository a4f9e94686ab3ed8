-- coroutines.lua - coroutines, which Lua 5.4 runs on the caller's C stack:
-- a resume is a protected call (setjmp) and a yield from coroutine.yield
-- is a longjmp back to it (luaD_throw(L, LUA_YIELD)), abandoning the C
-- frames in between. Generators with coroutine.wrap, many resume/yield,
-- yields across pcall inside a coroutine (finished by continuations), and
-- errors inside coroutines seen through resume and through wrap.
--   lua coroutines.lua N     (N scales the work)
-- Prints a checksum, then "count pcall P" (pcall calls made) and
-- "count throw T" (luaD_throw: each yield, each error, and for wrap the
-- error raised again in the caller).
local n = tonumber(arg[1]) or 1
local pcalls, throws = 0, 0

local function yield(...)
  throws = throws + 1
  return coroutine.yield(...)
end

local function range(k)
  return coroutine.wrap(function()
    for j = 1, k do yield(j) end
  end)
end

-- A producer/consumer pair passing values both ways.
local function pingpong(k)
  local co = coroutine.create(function(a)
    local sum = a
    for j = 1, k do sum = sum + yield(sum) end
    return sum
  end)
  local _, v = coroutine.resume(co, 1)
  while coroutine.status(co) == "suspended" do
    _, v = coroutine.resume(co, v % 7)
  end
  return v
end

-- Yields from inside a pcall inside the coroutine.
local function guarded(k)
  local co = coroutine.wrap(function()
    local total = 0
    for j = 1, k do
      pcalls = pcalls + 1
      local ok, v = pcall(function() return yield(j) * 2 end)
      total = total + v
    end
    pcalls = pcalls + 1
    local ok = pcall(function()
      yield(0)
      throws = throws + 1
      error("after yield")
    end)
    return total, ok
  end)
  local last
  for j = 1, k + 2 do last = co(j) end
  return last
end

local function failing()
  yield(1)
  throws = throws + 1
  error("in coroutine")
end

-- Nested coroutines: a generator consuming another generator.
local function squares(k)
  return coroutine.wrap(function()
    for v in range(k) do yield(v * v) end
  end)
end

local h = 0
for i = 1, n do
  for v in range(20 + i % 5) do h = (h * 31 + v) & 0xffffffff end
  h = (h * 31 + pingpong(30)) & 0xffffffff
  h = (h * 31 + guarded(5)) & 0xffffffff
  for v in squares(10) do h = (h + v) & 0xffffffff end
  local co = coroutine.create(failing)
  coroutine.resume(co)
  local ok, e = coroutine.resume(co)
  h = (h * 31 + #e) & 0xffffffff
  local w = coroutine.wrap(failing)
  w()
  pcalls = pcalls + 1
  ok, e = pcall(w)
  throws = throws + 1   -- wrap raises the error again in the caller
  h = (h * 31 + #e + (ok and 1 or 0)) & 0xffffffff
end
print(string.format("coroutines n=%d hash=%08x", n, h))
print("count pcall " .. pcalls)
print("count throw " .. throws)
