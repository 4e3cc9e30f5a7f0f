// Node's own import(), for a module loaded by Node's own require: what it imports lives outside jest's registry.
module.exports = (specifier) => import(specifier);
