/* dwarf_params.c - a function's signature from its DWARF (sig.h): each
 * parameter's name and type, and where the x86-64 System V ABI passes it.
 *
 * The placement follows the ABI's classification: integers, pointers and
 * enums take the next of rdi rsi rdx rcx r8 r9; float and double the next
 * of xmm0-7; an aggregate of at most 16 bytes is split into eightbytes,
 * each INTEGER or SSE by what lies in it, and takes registers only if all
 * it needs are free (else it goes to the stack whole, and the registers
 * stay for the parameters after it); larger aggregates, long double and
 * aggregates holding one go to the stack. A return in memory takes rdi for
 * its hidden pointer first. C++ classes that are not trivially copyable go
 * by reference: clang says so (DW_AT_calling_convention); for gcc, which
 * does not, a class with a destructor, a copy or move constructor, virtual
 * functions or bases, or a member of such a class, is one.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "sig.h"
#include "symtab_priv.h"

#define NGPR 6
#define NSSE 8
#define MAX_PARAMS 64
#define MAX_NEST 8

enum cls { C_NONE, C_INT, C_SSE, C_MEM };

void ada_sig_free(struct ada_sig *sig)
{
	if (!sig || sig->builtin)
		return;
	for (uint32_t i = 0; i <= sig->nparams; i++) {
		struct sig_value *v = i < sig->nparams ? &sig->params[i] : &sig->ret;

		free(v->name);
		for (uint32_t k = 0; k < v->nenum; k++)
			free(v->enums[k].name);
		free(v->enums);
	}
	free(sig);
}

static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, &t))
		return false;
	return dwarf_peel_type(&t, type) == 0;
}

static int64_t udata(Dwarf_Die *die, unsigned at, int64_t none)
{
	Dwarf_Attribute attr;
	Dwarf_Word w;

	if (!dwarf_attr_integrate(die, at, &attr) || dwarf_formudata(&attr, &w))
		return none;
	return (int64_t)w;
}

static bool is_cxx(Dwarf_Die *die)
{
	Dwarf_Die cu;
	int lang;

	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return false;
	lang = dwarf_srclang(&cu);
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

static bool is_aggregate(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type;
}

/* Whether a C++ class goes by invisible reference (Itanium ABI: not
 * trivial for the purposes of calls). */
static bool by_reference(Dwarf_Die *type, int nest)
{
	int64_t cc = udata(type, DW_AT_calling_convention, -1);
	const char *cls = dwarf_diename(type);
	Dwarf_Die child, mt;

	if (cc == DW_CC_pass_by_reference)
		return true;
	if (cc == DW_CC_pass_by_value || !is_cxx(type))
		return false;
	if (nest > MAX_NEST || dwarf_child(type, &child) != 0)
		return nest > MAX_NEST;
	do {
		int tag = dwarf_tag(&child);
		const char *name = dwarf_diename(&child);

		if (tag == DW_TAG_subprogram) {
			if (udata(&child, DW_AT_virtuality, 0) || (name && name[0] == '~'))
				return true;
			if (name && cls && !strcmp(name, cls)) { /* a constructor: by reference? */
				Dwarf_Die p, pt;

				if (dwarf_child(&child, &p) == 0)
					do {
						if (dwarf_tag(&p) == DW_TAG_formal_parameter &&
						    !udata(&p, DW_AT_artificial, 0) && type_of(&p, &pt) &&
						    (dwarf_tag(&pt) == DW_TAG_reference_type ||
						     dwarf_tag(&pt) == DW_TAG_rvalue_reference_type))
							return true;
					} while (dwarf_siblingof(&p, &p) == 0);
			}
		} else if (tag == DW_TAG_inheritance && udata(&child, DW_AT_virtuality, 0)) {
			return true;
		} else if ((tag == DW_TAG_member || tag == DW_TAG_inheritance) &&
			   !dwarf_hasattr(&child, DW_AT_external) && type_of(&child, &mt)) {
			while (dwarf_tag(&mt) == DW_TAG_array_type && type_of(&mt, &mt))
				;
			if (is_aggregate(dwarf_tag(&mt)) && by_reference(&mt, nest + 1))
				return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static void merge(enum cls *c, enum cls with)
{
	if (*c == with || with == C_NONE)
		return;
	if (*c == C_NONE)
		*c = with;
	else if (*c == C_MEM || with == C_MEM)
		*c = C_MEM;
	else
		*c = C_INT;
}

static void classify(Dwarf_Die *type, int64_t off, enum cls c[2], int nest);

/* An array's elements at off: each classified (at most 16 bytes of them). */
static void classify_array(Dwarf_Die *arr, int64_t off, enum cls c[2], int nest)
{
	Dwarf_Die elem, sub;
	int64_t esize, n = 1;

	if (!type_of(arr, &elem) || (esize = dwarf_bytesize(&elem)) <= 0) {
		c[0] = C_MEM;
		return;
	}
	if (dwarf_child(arr, &sub) == 0)
		do {
			int64_t count = udata(&sub, DW_AT_count, -1), up = udata(&sub, DW_AT_upper_bound, -1);

			if (dwarf_tag(&sub) == DW_TAG_subrange_type)
				n *= count >= 0 ? count : up >= 0 ? up + 1 : 0;
		} while (dwarf_siblingof(&sub, &sub) == 0);
	for (int64_t i = 0; i < n && off + i * esize < 16; i++)
		classify(&elem, off + i * esize, c, nest + 1);
}

/* The classes of the eightbytes a type at byte off of an aggregate covers. */
static void classify(Dwarf_Die *type, int64_t off, enum cls c[2], int nest)
{
	int tag = dwarf_tag(type);
	int64_t size = dwarf_bytesize(type);
	Dwarf_Die child, mt;

	if (nest > MAX_NEST || off < 0 || off >= 16) {
		c[0] = C_MEM;
		return;
	}
	if (is_aggregate(tag)) {
		if (dwarf_child(type, &child) != 0)
			return;
		do {
			int ct = dwarf_tag(&child);
			int64_t at = udata(&child, DW_AT_data_member_location, tag == DW_TAG_union_type ? 0 : -1);

			if (ct != DW_TAG_member && ct != DW_TAG_inheritance)
				continue;
			if (dwarf_hasattr(&child, DW_AT_external))
				continue; /* a static member */
			if (dwarf_hasattr(&child, DW_AT_data_bit_offset)) /* a bit-field */
				at = udata(&child, DW_AT_data_bit_offset, 0) / 8;
			if (at < 0 || !type_of(&child, &mt)) {
				c[0] = C_MEM;
				return;
			}
			if (dwarf_hasattr(&child, DW_AT_bit_size)) {
				merge(&c[(off + at) / 8 > 1 ? 1 : (off + at) / 8], C_INT);
				continue;
			}
			classify(&mt, off + at, c, nest + 1);
		} while (dwarf_siblingof(&child, &child) == 0);
		return;
	}
	if (tag == DW_TAG_array_type) {
		classify_array(type, off, c, nest);
		return;
	}
	if (size <= 0 || off % (size > 8 ? 8 : size)) { /* unknown, or not aligned */
		c[0] = C_MEM;
		return;
	}
	if (tag == DW_TAG_base_type) {
		int64_t enc = udata(type, DW_AT_encoding, -1);

		if (enc == DW_ATE_float && (size == 4 || size == 8)) {
			merge(&c[off / 8], C_SSE);
			return;
		}
		if (enc == DW_ATE_float || enc == DW_ATE_complex_float || size > 8) {
			c[0] = C_MEM; /* long double, complex, __int128: not followed */
			return;
		}
	}
	merge(&c[off / 8], C_INT);
}

/* The value's kind and size from its type (peeled). */
static void scalar_kind(Dwarf_Die *type, struct sig_value *v)
{
	int tag = dwarf_tag(type);
	int64_t size = dwarf_bytesize(type), enc = udata(type, DW_AT_encoding, -1);
	Dwarf_Die to;

	v->size = size > 0 && size <= 16 ? (uint8_t)size : 0;
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		v->size = 8;
		v->kind = SIG_POINTER;
		if (tag == DW_TAG_pointer_type && type_of(type, &to) && dwarf_tag(&to) == DW_TAG_base_type &&
		    dwarf_bytesize(&to) == 1) {
			int64_t te = udata(&to, DW_AT_encoding, -1);

			if (te == DW_ATE_signed_char || te == DW_ATE_unsigned_char)
				v->kind = SIG_STRING;
		}
		return;
	case DW_TAG_enumeration_type:
		v->kind = SIG_ENUM;
		return;
	case DW_TAG_base_type:
		break;
	default:
		v->kind = is_aggregate(tag) ? SIG_AGGREGATE : SIG_OTHER;
		return;
	}
	if (size > 8 || size <= 0)
		v->kind = SIG_OTHER;
	else if (enc == DW_ATE_float)
		v->kind = size == 4 || size == 8 ? SIG_FLOAT : SIG_OTHER;
	else if (enc == DW_ATE_boolean)
		v->kind = SIG_BOOL;
	else if (size == 1 && dwarf_diename(type) && !strcmp(dwarf_diename(type), "char"))
		v->kind = SIG_CHAR; /* signed and unsigned char (int8_t, uint8_t) are numbers */
	else if (enc == DW_ATE_signed || enc == DW_ATE_signed_char)
		v->kind = SIG_SIGNED;
	else if (enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char || enc == DW_ATE_UTF)
		v->kind = SIG_UNSIGNED;
	else
		v->kind = SIG_OTHER;
}

/* An enum's enumerators, copied; false if memory ran out. */
static bool enumerators(Dwarf_Die *type, struct sig_value *v)
{
	Dwarf_Die child, under;
	size_t cap = 0;

	v->is_signed = false;
	if (type_of(type, &under))
		v->is_signed = udata(&under, DW_AT_encoding, -1) == DW_ATE_signed;
	if (dwarf_child(type, &child) != 0)
		return true;
	do {
		Dwarf_Attribute attr;
		Dwarf_Sword s;
		const char *name = dwarf_diename(&child);

		if (dwarf_tag(&child) != DW_TAG_enumerator || !name ||
		    !dwarf_attr(&child, DW_AT_const_value, &attr) || dwarf_formsdata(&attr, &s))
			continue;
		if (v->nenum == cap) {
			void *p = reallocarray(v->enums, cap ? 2 * cap : 8, sizeof(*v->enums));

			if (!p)
				return false;
			v->enums = p;
			cap = cap ? 2 * cap : 8;
		}
		if (!(v->enums[v->nenum].name = strdup(name)))
			return false;
		v->enums[v->nenum++].value = s;
		if (s < 0)
			v->is_signed = true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return true;
}

/* Where the ABI puts arguments, as they are placed one by one. */
struct placer {
	unsigned gpr, sse;
	uint32_t stack_off; /* the next stack argument's, above the entry's sp */
	bool lost;          /* a placement was not known: the rest are not either */
};

static void on_stack(struct placer *pl, struct sig_value *v, int64_t size, unsigned align)
{
	pl->stack_off = 8 + (pl->stack_off - 8 + align - 1) / align * align;
	v->loc = LOC_STACK;
	v->stack_off = (uint16_t)pl->stack_off;
	pl->stack_off += (uint32_t)((size + 7) / 8 * 8);
	if (pl->stack_off > UINT16_MAX)
		pl->lost = true;
}

/* v's type (peeled) placed as a parameter. */
static void place(struct placer *pl, Dwarf_Die *type, struct sig_value *v)
{
	int64_t size = dwarf_bytesize(type);
	enum cls c[2] = { C_NONE, C_NONE };
	unsigned ni = 0, ns = 0;

	if (pl->lost) {
		v->loc = LOC_UNKNOWN;
		return;
	}
	if (v->kind == SIG_AGGREGATE && by_reference(type, 0)) {
		v->kind = SIG_POINTER; /* the copy's address */
		v->size = 8;
		size = 8;
		c[0] = C_INT;
	} else if (v->kind == SIG_FLOAT) {
		c[0] = C_SSE;
	} else if (v->kind == SIG_AGGREGATE && size > 0 && size <= 16) {
		classify(type, 0, c, 0);
	} else if (v->kind == SIG_OTHER || v->kind == SIG_AGGREGATE) {
		/* long double, complex, __int128, large aggregates: followed
		 * only where they surely go to the stack (memory class) */
		if (v->kind == SIG_OTHER || size <= 0) {
			v->loc = LOC_UNKNOWN;
			pl->lost = true;
			return;
		}
		c[0] = C_MEM;
	} else {
		c[0] = C_INT;
	}
	if (c[0] == C_MEM || c[1] == C_MEM) {
		if (v->kind != SIG_AGGREGATE) {
			v->loc = LOC_UNKNOWN;
			pl->lost = true;
			return;
		}
		/* aligned to 8: one holding a 16-byte-aligned member is not
		 * followed (its class was C_MEM for that member too) */
		on_stack(pl, v, size, 8);
		return;
	}
	for (int i = 0; i < 2; i++) {
		ni += c[i] == C_INT;
		ns += c[i] == C_SSE;
	}
	if (pl->gpr + ni > NGPR || pl->sse + ns > NSSE) {
		on_stack(pl, v, size > 0 ? size : 8, 8);
		return;
	}
	v->loc = c[0] == C_SSE ? LOC_SSE : LOC_GPR;
	v->reg = (uint8_t)(c[0] == C_SSE ? pl->sse : pl->gpr);
	pl->gpr += ni;
	pl->sse += ns;
}

/* The return value: its kind, and whether it goes in memory (the hidden
 * pointer takes rdi). */
static bool place_return(Dwarf_Die *fn, struct sig_value *ret)
{
	Dwarf_Die type;
	enum cls c[2] = { C_NONE, C_NONE };
	int64_t size;

	if (!type_of(fn, &type)) {
		ret->kind = SIG_VOID;
		ret->loc = LOC_NONE;
		return false;
	}
	scalar_kind(&type, ret);
	size = dwarf_bytesize(&type);
	if (ret->kind == SIG_ENUM && !enumerators(&type, ret))
		ret->nenum = 0;
	if (ret->kind == SIG_AGGREGATE) {
		if (!by_reference(&type, 0) && size > 0 && size <= 16) {
			classify(&type, 0, c, 0);
			if (c[0] != C_MEM && c[1] != C_MEM) {
				ret->loc = c[0] == C_SSE ? LOC_SSE : LOC_GPR;
				return false;
			}
		}
		ret->loc = LOC_MEMORY;
		return true;
	}
	if (ret->kind == SIG_OTHER) {
		ret->loc = LOC_UNKNOWN;
		return false;
	}
	ret->loc = ret->kind == SIG_FLOAT ? LOC_SSE : LOC_GPR;
	return false;
}

/* The DIE whose children are the parameters: an out-of-line copy of an
 * inline function lists them at its abstract origin; a C++ member's
 * definition lists its own, with names (its declaration has none). */
static void params_die(Dwarf_Die *fn, Dwarf_Die *out)
{
	Dwarf_Attribute attr;
	Dwarf_Die child;

	*out = *fn;
	if (dwarf_attr(fn, DW_AT_abstract_origin, &attr) && dwarf_formref_die(&attr, out))
		fn = out;
	if (dwarf_child(fn, &child) == 0)
		do {
			if (dwarf_tag(&child) == DW_TAG_formal_parameter)
				return;
		} while (dwarf_siblingof(&child, &child) == 0);
	if (dwarf_attr(fn, DW_AT_specification, &attr))
		dwarf_formref_die(&attr, out);
}

struct ada_sig *ada_dwarf_sig(Dwarf_Die *fn)
{
	struct ada_sig *sig = calloc(1, sizeof(*sig) + MAX_PARAMS * sizeof(sig->params[0]));
	struct placer pl = { .stack_off = 8 };
	Dwarf_Die pd, child, type;

	if (!sig)
		return NULL;
	if (place_return(fn, &sig->ret))
		pl.gpr = 1;
	params_die(fn, &pd);
	if (dwarf_child(&pd, &child) == 0)
		do {
			struct sig_value *v = &sig->params[sig->nparams];
			const char *name;
			int tag = dwarf_tag(&child);

			if (tag == DW_TAG_unspecified_parameters)
				sig->variadic = true;
			if (tag != DW_TAG_formal_parameter)
				continue;
			if (sig->nparams == MAX_PARAMS)
				break;
			sig->nparams++;
			name = dwarf_diename(&child);
			if (name && !(v->name = strdup(name)))
				goto fail;
			if (!type_of(&child, &type)) {
				v->kind = SIG_OTHER;
				v->loc = LOC_UNKNOWN;
				pl.lost = true;
				continue;
			}
			scalar_kind(&type, v);
			if (v->kind == SIG_ENUM && !enumerators(&type, v))
				goto fail;
			place(&pl, &type, v);
		} while (dwarf_siblingof(&child, &child) == 0);
	return realloc(sig, sizeof(*sig) + sig->nparams * sizeof(sig->params[0])) ?: sig;
fail:
	ada_sig_free(sig);
	return NULL;
}
