// rootweave.hpp: the C++17 interface of rootweave, header-only over the C API of
// rootweave.h. Handles are RAII objects, failures are exceptions (rootweave::Error)
// carrying the library's message, and the names are ROOT's where the idea is ROOT's:
// RNTupleModel::MakeField, RNTupleParallelWriter::Recreate/Append, CreateFillContext,
// REntry::GetPtr/BindRawPtr, FillContext::Fill/FillNoFlush/FlushCluster.
//
// Threads: a model is built on one thread; a writer may be used from any thread (fill
// contexts are made by any thread); a fill context and an entry belong to one thread at a
// time (make one per thread or task slot, as with ROOT's parallel writer).
#ifndef ROOTWEAVE_HPP
#define ROOTWEAVE_HPP

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "rootweave.h"

namespace rootweave {

/// A failed call: the library's status and message.
class Error : public std::runtime_error {
 public:
  Error(rw_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  /// What kind of failure (RW_INVALID_ARGUMENT, RW_IO, RW_WOULD_BLOCK, ...).
  rw_status Status() const noexcept { return status_; }

 private:
  rw_status status_;
};

namespace detail {

/// Throws the calling thread's last error when `status` is not RW_OK.
inline void Check(rw_status status) {
  if (status != RW_OK) throw Error(status, rw_last_error());
}

/// Bytes appended at the end, grown without being zeroed first (a std::vector would zero
/// what it grows by before the copy overwrites it, once per value of every entry).
class ByteBuffer {
 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const unsigned char* data() const { return data_.get(); }
  void clear() { size_ = 0; }

  /// Room for `n` more bytes at the end, counted as written: the caller fills them.
  unsigned char* Extend(std::size_t n) {
    if (n == 0) return data_.get();
    if (capacity_ - size_ < n) Grow(n);
    unsigned char* at = data_.get() + size_;
    size_ += n;
    return at;
  }

  /// Copies `n` bytes from `from` to the end.
  void Append(const void* from, std::size_t n) {
    if (n) std::memcpy(Extend(n), from, n);
  }

 private:
  void Grow(std::size_t n) {
    std::size_t capacity = std::max(size_ + n, 2 * capacity_ + 64);
    // new[] of unsigned char leaves the bytes uninitialised: only written bytes are read.
    std::unique_ptr<unsigned char[]> grown(new unsigned char[capacity]);
    if (size_) std::memcpy(grown.get(), data_.get(), size_);
    data_ = std::move(grown);
    capacity_ = capacity;
  }

  std::unique_ptr<unsigned char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

/// One field's values of the entries a fill context gathered, in the columnar layout the C
/// API takes (rw_column): leaf bytes or string characters, offsets from 0, children for
/// items and members. Cleared after each hand-over, its memory kept for the next entries.
struct ColumnBuilder {
  ByteBuffer values;
  std::vector<std::uint64_t> offsets{0};
  std::vector<ColumnBuilder> children;
  std::vector<rw_column> childViews;
  std::size_t length = 0;

  /// Empties the builder, keeping its memory.
  void Clear() {
    values.clear();
    offsets.resize(1);
    length = 0;
    for (auto& c : children) c.Clear();
  }

  /// The child builder `k` (made on first use).
  ColumnBuilder& Child(std::size_t k) {
    if (children.size() <= k) children.resize(k + 1);
    return children[k];
  }

  /// The gathered values as a column (valid until the builder changes).
  rw_column View() {
    childViews.resize(children.size());
    for (std::size_t k = 0; k < children.size(); ++k) childViews[k] = children[k].View();
    return rw_column{values.empty() ? nullptr : values.data(), offsets.data(), length,
                     childViews.empty() ? nullptr : childViews.data(), childViews.size()};
  }
};

/// Appends values of one C++ type to a column builder: `n` values at `first`, `stride`
/// bytes apart (members of consecutive objects of a class are strided). Returns the bytes
/// appended, by which a fill context decides when to hand its entries over.
class Binder {
 public:
  /// The size of one value when the type is a number whose bytes are copied as they are
  /// (not bool), else 0: a fill context copies such a field's value itself, without a call.
  const std::size_t numberBytes;

  explicit Binder(std::size_t width = 0) : numberBytes(width) {}
  virtual ~Binder() = default;
  virtual std::size_t Append(const char* first, std::size_t n, std::size_t stride,
                             ColumnBuilder& out) const = 0;
};

/// Copies one number of `bytes` from `from` to `to`: the widths of numbers as copies of
/// known size, any other width as it is.
inline void CopyNumber(void* to, const void* from, std::size_t bytes) {
  switch (bytes) {
    case 8: std::memcpy(to, from, 8); break;
    case 4: std::memcpy(to, from, 4); break;
    case 2: std::memcpy(to, from, 2); break;
    case 1: std::memcpy(to, from, 1); break;
    default: std::memcpy(to, from, bytes); break;
  }
}

/// Numbers and bool: their bytes (bool as 0 or 1).
template <class T>
class LeafBinder final : public Binder {
 public:
  LeafBinder() : Binder(std::is_same_v<T, bool> ? 0 : sizeof(T)) {}

  std::size_t Append(const char* first, std::size_t n, std::size_t stride,
                     ColumnBuilder& out) const override {
    if (n <= 1 || stride == sizeof(T)) {
      out.values.Append(first, n * sizeof(T));
    } else {
      unsigned char* to = out.values.Extend(n * sizeof(T));
      for (std::size_t i = 0; i < n; ++i)
        std::memcpy(to + i * sizeof(T), first + i * stride, sizeof(T));
    }
    out.length += n;
    return n * sizeof(T);
  }
};

/// std::string: characters and an offset per string.
class StringBinder final : public Binder {
 public:
  std::size_t Append(const char* first, std::size_t n, std::size_t stride,
                     ColumnBuilder& out) const override {
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& s = *reinterpret_cast<const std::string*>(first + i * stride);
      out.values.Append(s.data(), s.size());
      out.offsets.push_back(out.values.size());
      bytes += s.size() + 8;
    }
    out.length += n;
    return bytes;
  }
};

/// A std::vector of items (or, `Contiguous` false, a set of them, in its order): an offset
/// per collection, the items in the child builder.
template <class Collection, class Item, bool Contiguous = true>
class CollectionBinder final : public Binder {
 public:
  explicit CollectionBinder(std::shared_ptr<const Binder> item) : item_(std::move(item)) {}

  std::size_t Append(const char* first, std::size_t n, std::size_t stride,
                     ColumnBuilder& out) const override {
    ColumnBuilder& items = out.Child(0);
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& c = *reinterpret_cast<const Collection*>(first + i * stride);
      if constexpr (std::is_same_v<Item, bool> || !Contiguous) {
        // std::vector<bool> packs its bits, a set's items are apart: appended one by one.
        for (const Item& item : c)
          bytes += item_->Append(reinterpret_cast<const char*>(&item), 1, sizeof(Item), items);
      } else {
        bytes += item_->Append(reinterpret_cast<const char*>(c.data()), c.size(), sizeof(Item), items);
      }
      out.offsets.push_back(items.length);
      bytes += 8;
    }
    out.length += n;
    return bytes;
  }

 private:
  std::shared_ptr<const Binder> item_;
};

/// std::array<Item, N>: N items per entry in the child builder.
template <class Item, std::size_t N>
class ArrayBinder final : public Binder {
 public:
  explicit ArrayBinder(std::shared_ptr<const Binder> item) : item_(std::move(item)) {}

  std::size_t Append(const char* first, std::size_t n, std::size_t stride,
                     ColumnBuilder& out) const override {
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < n; ++i)
      bytes += item_->Append(first + i * stride, N, sizeof(Item), out.Child(0));
    out.length += n;
    return bytes;
  }

 private:
  std::shared_ptr<const Binder> item_;
};

/// std::optional<Item>: 0 or 1 items per entry.
template <class Item>
class OptionalBinder final : public Binder {
 public:
  explicit OptionalBinder(std::shared_ptr<const Binder> item) : item_(std::move(item)) {}

  std::size_t Append(const char* first, std::size_t n, std::size_t stride,
                     ColumnBuilder& out) const override {
    ColumnBuilder& items = out.Child(0);
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const auto& o = *reinterpret_cast<const std::optional<Item>*>(first + i * stride);
      if (o) bytes += item_->Append(reinterpret_cast<const char*>(&*o), 1, sizeof(Item), items);
      out.offsets.push_back(items.length);
      bytes += 8;
    }
    out.length += n;
    return bytes;
  }

 private:
  std::shared_ptr<const Binder> item_;
};

/// One member of a class: where it is in an object and how its values are appended.
template <class C>
class MemberBinder {
 public:
  virtual ~MemberBinder() = default;
  virtual std::size_t Append(const C* first, std::size_t n, std::size_t stride,
                             ColumnBuilder& out) const = 0;
};

template <class C, class M>
class MemberOf final : public MemberBinder<C> {
 public:
  MemberOf(M C::*member, std::shared_ptr<const Binder> binder)
      : member_(member), binder_(std::move(binder)) {}

  std::size_t Append(const C* first, std::size_t n, std::size_t stride,
                     ColumnBuilder& out) const override {
    const char* at = n ? reinterpret_cast<const char*>(&(first->*member_)) : nullptr;
    return binder_->Append(at, n, stride, out);
  }

 private:
  M C::*member_;
  std::shared_ptr<const Binder> binder_;
};

/// A class: one child builder per member, read in place (strided) from the objects.
template <class C>
class ClassBinder final : public Binder {
 public:
  explicit ClassBinder(std::vector<std::shared_ptr<const MemberBinder<C>>> members)
      : members_(std::move(members)) {}

  std::size_t Append(const char* first, std::size_t n, std::size_t stride,
                     ColumnBuilder& out) const override {
    const C* objects = reinterpret_cast<const C*>(first);
    std::size_t bytes = 0;
    for (std::size_t k = 0; k < members_.size(); ++k)
      bytes += members_[k]->Append(objects, n, stride ? stride : sizeof(C), out.Child(k));
    out.length += n;
    return bytes;
  }

 private:
  std::vector<std::shared_ptr<const MemberBinder<C>>> members_;
};

/// The classes a model declares, by C++ type: their ROOT names and binders.
struct ClassRegistry {
  struct Entry {
    std::string name;
    std::shared_ptr<const Binder> binder;
  };
  std::unordered_map<std::type_index, Entry> classes;
};

template <class T>
struct IsVector : std::false_type {};
template <class T, class A>
struct IsVector<std::vector<T, A>> : std::true_type {
  using Item = T;
};
template <class T>
struct IsArray : std::false_type {};
template <class T, std::size_t N>
struct IsArray<std::array<T, N>> : std::true_type {
  using Item = T;
  static constexpr std::size_t size = N;
};
/// The sets ROOT's RNTuple stores, with their names as ROOT spells them.
template <class T>
struct IsSet : std::false_type {};
template <class T, class C, class A>
struct IsSet<std::set<T, C, A>> : std::true_type {
  using Item = T;
  static constexpr const char* name = "std::set<";
};
template <class T, class C, class A>
struct IsSet<std::multiset<T, C, A>> : std::true_type {
  using Item = T;
  static constexpr const char* name = "std::multiset<";
};
template <class T, class H, class E, class A>
struct IsSet<std::unordered_set<T, H, E, A>> : std::true_type {
  using Item = T;
  static constexpr const char* name = "std::unordered_set<";
};
template <class T, class H, class E, class A>
struct IsSet<std::unordered_multiset<T, H, E, A>> : std::true_type {
  using Item = T;
  static constexpr const char* name = "std::unordered_multiset<";
};
template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {
  using Item = T;
};

/// ROOT's name of a C++ type (`"std::vector<float>"`, `"std::int32_t"`, a class's name).
template <class T>
std::string TypeName(const ClassRegistry& registry) {
  if constexpr (std::is_same_v<T, bool>) {
    return "bool";
  } else if constexpr (std::is_floating_point_v<T>) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "only float and double are stored");
    return sizeof(T) == 4 ? "float" : "double";
  } else if constexpr (std::is_integral_v<T>) {
    return std::string(std::is_signed_v<T> ? "std::int" : "std::uint") +
           std::to_string(8 * sizeof(T)) + "_t";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "std::string";
  } else if constexpr (IsVector<T>::value) {
    return "std::vector<" + TypeName<typename IsVector<T>::Item>(registry) + ">";
  } else if constexpr (IsArray<T>::value) {
    return "std::array<" + TypeName<typename IsArray<T>::Item>(registry) + "," +
           std::to_string(IsArray<T>::size) + ">";
  } else if constexpr (IsOptional<T>::value) {
    return "std::optional<" + TypeName<typename IsOptional<T>::Item>(registry) + ">";
  } else if constexpr (IsSet<T>::value) {
    return IsSet<T>::name + TypeName<typename IsSet<T>::Item>(registry) + ">";
  } else {
    auto found = registry.classes.find(std::type_index(typeid(T)));
    if (found == registry.classes.end())
      throw Error(RW_INVALID_ARGUMENT,
                  std::string("a class not declared in the model (AddClass): ") + typeid(T).name());
    return found->second.name;
  }
}

/// The binder of a C++ type.
template <class T>
std::shared_ptr<const Binder> MakeBinder(const ClassRegistry& registry) {
  if constexpr (std::is_arithmetic_v<T>) {
    return std::make_shared<LeafBinder<T>>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return std::make_shared<StringBinder>();
  } else if constexpr (IsVector<T>::value) {
    using Item = typename IsVector<T>::Item;
    return std::make_shared<CollectionBinder<T, Item>>(MakeBinder<Item>(registry));
  } else if constexpr (IsArray<T>::value) {
    using Item = typename IsArray<T>::Item;
    return std::make_shared<ArrayBinder<Item, IsArray<T>::size>>(MakeBinder<Item>(registry));
  } else if constexpr (IsOptional<T>::value) {
    using Item = typename IsOptional<T>::Item;
    return std::make_shared<OptionalBinder<Item>>(MakeBinder<Item>(registry));
  } else if constexpr (IsSet<T>::value) {
    using Item = typename IsSet<T>::Item;
    return std::make_shared<CollectionBinder<T, Item, false>>(MakeBinder<Item>(registry));
  } else {
    auto found = registry.classes.find(std::type_index(typeid(T)));
    if (found == registry.classes.end())
      throw Error(RW_INVALID_ARGUMENT,
                  std::string("a class not declared in the model (AddClass): ") + typeid(T).name());
    return found->second.binder;
  }
}

/// A field of a model: its name, its type as ROOT spells it, and, when declared from a
/// C++ type, that type, its binder and how to make a value of it.
struct FieldInfo {
  std::string name;
  std::string typeName;
  std::optional<std::type_index> type;
  std::shared_ptr<const Binder> binder;
  std::function<std::shared_ptr<void>()> make;
  std::size_t size = 0;
};

/// What a model is once a writer took it: shared by the writer, its contexts and entries.
struct ModelData {
  std::vector<FieldInfo> fields;
  std::unordered_map<std::string, std::size_t> positions;
  ClassRegistry registry;
  /// The position of field `name` (RW_NOT_FOUND if the model has none).
  std::size_t Index(std::string_view name) const {
    auto found = positions.find(std::string(name));
    if (found == positions.end())
      throw Error(RW_NOT_FOUND, "the model has no field called '" + std::string(name) + "'");
    return found->second;
  }
};

}  // namespace detail

/// One member of a class for RNTupleModel::AddClass: its name and pointer to member.
template <class C>
struct MemberSpec {
  std::string name;
  std::function<std::string(const detail::ClassRegistry&)> typeName;
  std::function<std::shared_ptr<const detail::MemberBinder<C>>(const detail::ClassRegistry&)>
      binder;
};

/// A member `name` of class C stored at `member` (`Member("pt", &Particle::pt)`).
template <class C, class M>
MemberSpec<C> Member(std::string name, M C::*member) {
  return MemberSpec<C>{
      std::move(name), [](const detail::ClassRegistry& r) { return detail::TypeName<M>(r); },
      [member](const detail::ClassRegistry& r) -> std::shared_ptr<const detail::MemberBinder<C>> {
        return std::make_shared<detail::MemberOf<C, M>>(member, detail::MakeBinder<M>(r));
      }};
}

/// The fields of an RNTuple or TTree (ROOT's RNTupleModel): C++ types by template, or
/// ROOT type names as strings, and the classes they use.
class RNTupleModel {
 public:
  /// A model of no fields (as ROOT's RNTupleModel::Create / CreateBare: entries come from
  /// the fill contexts).
  static std::unique_ptr<RNTupleModel> Create() {
    return std::unique_ptr<RNTupleModel>(new RNTupleModel());
  }
  /// The same as Create: rootweave's models have no default entry to leave out.
  static std::unique_ptr<RNTupleModel> CreateBare() { return Create(); }

  ~RNTupleModel() { rw_model_free(model_); }
  RNTupleModel(const RNTupleModel&) = delete;
  RNTupleModel& operator=(const RNTupleModel&) = delete;

  /// Adds a field of C++ type T (a number, bool, std::string, std::vector, std::array,
  /// std::optional, or a class declared with AddClass).
  template <class T>
  void MakeField(std::string_view name) {
    detail::FieldInfo info;
    info.name = std::string(name);
    info.typeName = detail::TypeName<T>(data_->registry);
    info.type = std::type_index(typeid(T));
    info.binder = detail::MakeBinder<T>(data_->registry);
    info.make = [] { return std::static_pointer_cast<void>(std::make_shared<T>()); };
    info.size = sizeof(T);
    Add(std::move(info));
  }

  /// Adds a field by ROOT type name (`"std::vector<float>"`); its values are bound with
  /// REntry::BindRawPtr (checked against the name) or given as columns.
  void AddField(std::string_view name, std::string_view typeName) {
    detail::FieldInfo info;
    info.name = std::string(name);
    info.typeName = std::string(typeName);
    Add(std::move(info));
  }

  /// Declares class C under ROOT name `name` (class version `version`) with its members in
  /// order: `AddClass<Hit>("Hit", 1, {Member("x", &Hit::x), Member("e", &Hit::e)})`. Its
  /// members may be numbers, strings, standard containers and classes declared before.
  template <class C>
  void AddClass(std::string_view name, std::uint32_t version,
                const std::vector<MemberSpec<C>>& members) {
    std::vector<std::string> names, types;
    std::vector<std::shared_ptr<const detail::MemberBinder<C>>> binders;
    for (const auto& m : members) {
      names.push_back(m.name);
      types.push_back(m.typeName(data_->registry));
      binders.push_back(m.binder(data_->registry));
    }
    std::vector<const char*> cNames, cTypes;
    for (std::size_t i = 0; i < names.size(); ++i) {
      cNames.push_back(names[i].c_str());
      cTypes.push_back(types[i].c_str());
    }
    std::string className(name);
    detail::Check(rw_model_add_class(model_, className.c_str(), version, names.size(),
                                     cNames.data(), cTypes.data()));
    data_->registry.classes[std::type_index(typeid(C))] = {
        className, std::make_shared<detail::ClassBinder<C>>(std::move(binders))};
  }

  /// The number of fields.
  std::size_t GetFieldCount() const { return data_->fields.size(); }

  /// The C model (for the C API).
  const rw_model* Raw() const { return model_; }

 private:
  RNTupleModel() : data_(std::make_shared<detail::ModelData>()) {
    detail::Check(rw_model_new(&model_));
  }

  void Add(detail::FieldInfo info) {
    detail::Check(rw_model_add_field(model_, info.name.c_str(), info.typeName.c_str()));
    const char* normalised = nullptr;
    detail::Check(rw_model_field_type_name(model_, data_->fields.size(), &normalised));
    info.typeName = normalised;
    data_->positions[info.name] = data_->fields.size();
    data_->fields.push_back(std::move(info));
  }

  rw_model* model_ = nullptr;
  std::shared_ptr<detail::ModelData> data_;

  friend class ParallelWriter;
};

/// The values of one entry: owned by the entry (GetPtr) or the caller's, bound by address
/// (BindRawPtr, ROOT's raw-pointer binding: nothing is copied into library objects).
class REntry {
 public:
  /// The entry's own value of field `name`, of C++ type T (the field's type).
  template <class T>
  std::shared_ptr<T> GetPtr(std::string_view name) {
    std::size_t i = data_->Index(name);
    CheckType<T>(i);
    if (!owned_[i]) {
      if (!data_->fields[i].make)
        throw Error(RW_INVALID_ARGUMENT,
                    "field '" + data_->fields[i].name +
                        "' was declared by type name: bind a value with BindRawPtr");
      owned_[i] = data_->fields[i].make();
    }
    addresses_[i] = owned_[i].get();
    SetBinder(i, data_->fields[i].binder);
    return std::static_pointer_cast<T>(owned_[i]);
  }

  /// Binds field `name` to the caller's object at `address` (which must outlive the
  /// fills); T must be the field's type (else RW_INVALID_ARGUMENT naming both).
  template <class T>
  void BindRawPtr(std::string_view name, T* address) {
    std::size_t i = data_->Index(name);
    CheckType<T>(i);
    const auto& field = data_->fields[i];
    SetBinder(i, (field.type && *field.type == std::type_index(typeid(T)))
                     ? field.binder
                     : detail::MakeBinder<T>(data_->registry));
    addresses_[i] = address;
    owned_[i].reset();
  }

 private:
  explicit REntry(std::shared_ptr<const detail::ModelData> data, bool withValues)
      : data_(std::move(data)),
        addresses_(data_->fields.size(), nullptr),
        binders_(data_->fields.size()),
        numberBytes_(data_->fields.size(), 0),
        owned_(data_->fields.size()) {
    if (withValues)
      for (std::size_t i = 0; i < data_->fields.size(); ++i)
        if (data_->fields[i].make) {
          owned_[i] = data_->fields[i].make();
          addresses_[i] = owned_[i].get();
          SetBinder(i, data_->fields[i].binder);
        }
  }

  void SetBinder(std::size_t i, std::shared_ptr<const detail::Binder> binder) {
    auto width = static_cast<unsigned char>(binder->numberBytes);
    if (width != numberBytes_[i]) {
      rowBytes_ += width;
      rowBytes_ -= numberBytes_[i];
      numberBytes_[i] = width;
      layout_ = NewLayout();
    }
    binders_[i] = std::move(binder);
  }

  /// A number no entry's layout has had before.
  static std::uint64_t NewLayout() {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(1, std::memory_order_relaxed);
  }

  template <class T>
  void CheckType(std::size_t i) const {
    std::string given = detail::TypeName<T>(data_->registry);
    if (given != data_->fields[i].typeName)
      throw Error(RW_INVALID_ARGUMENT, "field '" + data_->fields[i].name + "' holds " +
                                           data_->fields[i].typeName + ", not " + given);
  }

  std::shared_ptr<const detail::ModelData> data_;
  std::vector<const void*> addresses_;
  std::vector<std::shared_ptr<const detail::Binder>> binders_;
  /// Each binder's numberBytes, side by side: the fill loop reads them without visiting
  /// the binders.
  std::vector<unsigned char> numberBytes_;
  /// The sum of numberBytes_: the bytes of the entry's numbers side by side.
  std::size_t rowBytes_ = 0;
  /// Names numberBytes_'s current state, unique among entries: a fill context knows the
  /// entry's numbers are laid out as those it gathered without comparing the widths.
  std::uint64_t layout_ = NewLayout();
  std::vector<std::shared_ptr<void>> owned_;

  friend class FillContext;
};

/// What FillNoFlush says (ROOT's RNTupleFillStatus).
class RNTupleFillStatus {
 public:
  /// Whether the cluster reached its target size: commit it with FlushCluster.
  bool ShouldFlushCluster() const noexcept { return due_; }

 private:
  bool due_ = false;
  friend class FillContext;
};

class FillContext;

namespace detail {
/// What a writer and its fill contexts share: whether it is closed, and the contexts, so
/// that closing hands over what they gathered.
struct WriterState {
  std::mutex mutex;
  std::vector<std::weak_ptr<FillContext>> contexts;
  bool closed = false;
};
}  // namespace detail

/// A producer's handle on a parallel writer (ROOT's RNTupleFillContext): gathers entries
/// into columns (copying the bound objects' values, as ROOT copies them into its page
/// buffers) and hands them to the library a few hundred kilobytes at a time, which
/// compresses its clusters on the calling thread. One thread at a time; destroy it (or
/// close its writer) before the writer is destroyed: both hand over what it gathered.
class FillContext {
 public:
  ~FillContext() {
    try {
      HandOver(Mode::Plain);
    } catch (...) {
      // Destructors do not throw: FlushColumns and the writer's Close report failures.
    }
    rw_fill_context_free(context_);
  }
  FillContext(const FillContext&) = delete;
  FillContext& operator=(const FillContext&) = delete;

  /// A new entry with a value of its own per field declared by C++ type (GetPtr).
  std::unique_ptr<REntry> CreateEntry() const {
    return std::unique_ptr<REntry>(new REntry(data_, true));
  }

  /// A new entry without values: every field is bound with BindRawPtr (ROOT's
  /// CreateRawPtrWriteEntry).
  std::unique_ptr<REntry> CreateRawPtrWriteEntry() const {
    return std::unique_ptr<REntry>(new REntry(data_, false));
  }

  /// Appends the entry; clusters are committed when they reach their target size, and a
  /// hand-over waits while the memory budget is spent. With an ordered writer the entry is
  /// staged: CommitStagedCluster commits the cluster.
  void Fill(REntry& entry) {
    Gather(entry);
    if (Full()) HandOver(Mode::Plain);
  }

  /// Appends the entry without committing the cluster; `status.ShouldFlushCluster()` says
  /// when it is due (ROOT's FillNoFlush), known at each hand-over: commit it with
  /// FlushCluster, or, with an ordered writer, CommitStagedCluster.
  void FillNoFlush(REntry& entry, RNTupleFillStatus& status) {
    Gather(entry);
    if (Full()) HandOver(Mode::NoFlush);
    status.due_ = due_;
  }

  /// Appends the entry if the memory budget has room for a hand-over when one is due;
  /// false (nothing appended) if not, without waiting: for task schedulers whose threads
  /// must not block (retry after WaitForBudget or the writer's budget callback).
  bool TryFill(REntry& entry) {
    if (Full() && !HandOver(Mode::Try)) return false;
    Gather(entry);
    return true;
  }

  /// Hands the gathered entries to the library without committing a cluster (ROOT's
  /// FlushColumns); failures of a hand-over are reported here at the latest.
  void FlushColumns() { HandOver(Mode::NoFlush); }

  /// Commits the entries held as a cluster (ROOT's FlushCluster).
  void FlushCluster() {
    HandOver(Mode::NoFlush);
    detail::Check(rw_fill_context_flush_cluster(context_));
    due_ = false;
  }

  /// Commits the staged entries (ordered writers) as the cluster of sequence number
  /// `sequence`: clusters enter the file in sequence order, whatever the threads' timing
  /// (ROOT's staged cluster committing, with the order given by number). Numbers start at
  /// 0 and each is used once; a context destroyed with staged entries loses them and the
  /// writer's Close reports it.
  void CommitStagedCluster(std::uint64_t sequence) {
    HandOver(Mode::Plain);
    detail::Check(rw_fill_context_commit_staged(context_, sequence));
    due_ = false;
  }

  /// Appends `entries` entries given as columns, one per field in the model's order.
  void Append(const rw_column* columns, std::size_t entries) {
    HandOver(Mode::Plain);
    detail::Check(rw_fill_context_append(context_, columns, data_->fields.size(), entries));
  }

  /// Appends columns and commits them as the cluster of sequence number `sequence`
  /// (ordered writers: clusters enter the file in sequence order).
  void AppendSequence(std::uint64_t sequence, const rw_column* columns, std::size_t entries) {
    detail::Check(rw_fill_context_append_sequence(context_, sequence, columns,
                                                  data_->fields.size(), entries));
  }

  /// Appends a batch given through the Arrow C Data Interface: a struct array with one
  /// child per field; the array and schema are released by the call.
  void AppendArrow(ArrowArray* array, ArrowSchema* schema) {
    HandOver(Mode::Plain);
    detail::Check(rw_fill_context_append_arrow(context_, array, schema));
  }

  /// Declares that sequence number `sequence` will never come (ordered writers).
  void SkipSequence(std::uint64_t sequence) {
    detail::Check(rw_fill_context_skip_sequence(context_, sequence));
  }

  /// The C handle (for the C API; hand over what Fill gathered first with FlushColumns).
  rw_fill_context* Raw() { return context_; }

 private:
  /// How gathered entries are handed over.
  enum class Mode { Plain, NoFlush, Try };

  /// Entries and bytes gathered before they are handed over: enough that a call's cost
  /// per field is spread thin (a 10,000-field entry is 40 KB), little against the
  /// writer's memory budget (the rows and the columns made of them hold twice this).
  static constexpr std::size_t kMaxEntries = 1024;
  static constexpr std::size_t kMaxBytes = 1 << 20;

  FillContext(rw_fill_context* context, std::shared_ptr<const detail::ModelData> data, bool ordered,
              std::shared_ptr<detail::WriterState> writer)
      : context_(context),
        data_(std::move(data)),
        ordered_(ordered),
        writer_(std::move(writer)),
        builders_(data_->fields.size()),
        views_(data_->fields.size()) {}

  bool Full() const { return entries_ >= kMaxEntries || bytes_ >= kMaxBytes; }

  void Gather(REntry& entry) {
    if (entry.data_ != data_)
      throw Error(RW_INVALID_ARGUMENT, "the entry belongs to another writer's model");
    if (writer_->closed) throw Error(RW_CLOSED, "the writer of this fill context is closed");
    for (std::size_t i = 0; i < builders_.size(); ++i)
      if (!entry.addresses_[i])
        throw Error(RW_INVALID_ARGUMENT,
                    "field '" + data_->fields[i].name + "' has no value bound (BindRawPtr)");
    if (entry.layout_ != layout_) {
      // A field's width follows from its type name, which every entry of the model
      // shares: layouts differ in name only, which the comparison confirms.
      if (entries_ && entry.numberBytes_ != rowWidths_)
        throw Error(RW_INVALID_ARGUMENT, "the entry's numbers are laid out unlike those gathered");
      rowWidths_ = entry.numberBytes_;
      rowBytes_ = entry.rowBytes_;
      layout_ = entry.layout_;
    }
    const std::size_t fields = builders_.size();
    const unsigned char* widths = entry.numberBytes_.data();
    const void* const* addresses = entry.addresses_.data();
    unsigned char* row = rows_.Extend(rowBytes_);
    std::size_t bytes = rowBytes_;  // a local: stores to the builders cannot alias it
    for (std::size_t i = 0; i < fields; ++i) {
      if (std::size_t width = widths[i]) {
        detail::CopyNumber(row, addresses[i], width);
        row += width;
      } else {
        bytes += entry.binders_[i]->Append(static_cast<const char*>(addresses[i]), 1, 0,
                                           builders_[i]);
      }
    }
    bytes_ += bytes;
    ++entries_;
  }

  /// Hands the gathered entries to the library; false only when Mode::Try found the
  /// budget spent (the entries stay gathered).
  bool HandOver(Mode mode) {
    if (entries_ == 0) return true;
    UnstageRows();
    for (std::size_t i = 0; i < builders_.size(); ++i) views_[i] = builders_[i].View();
    const rw_column* columns = views_.data();
    std::size_t n = views_.size();
    rw_status status;
    if (ordered_) {
      status = rw_fill_context_append_staged(context_, columns, n, entries_, &due_);
    } else if (mode == Mode::NoFlush) {
      status = rw_fill_context_append_no_flush(context_, columns, n, entries_, &due_);
    } else if (mode == Mode::Try) {
      status = rw_fill_context_try_append(context_, columns, n, entries_);
      if (status == RW_WOULD_BLOCK) return false;
    } else {
      status = rw_fill_context_append(context_, columns, n, entries_);
    }
    // Handed over or refused, the entries leave the context: a refused batch would be
    // refused again.
    for (auto& b : builders_) b.Clear();
    entries_ = 0;
    bytes_ = 0;
    detail::Check(status);
    return true;
  }

  /// Moves the numbers gathered as rows into their fields' builders, field by field: a
  /// row's bytes stay in cache for the fields that follow, and each builder is visited
  /// once per hand-over rather than once per entry.
  void UnstageRows() {
    std::size_t rows = rowBytes_ ? rows_.size() / rowBytes_ : 0;
    const unsigned char* at = rows_.data();
    for (std::size_t i = 0; i < builders_.size() && rows; ++i) {
      std::size_t width = rowWidths_[i];
      if (!width) continue;
      unsigned char* to = builders_[i].values.Extend(rows * width);
      for (std::size_t r = 0; r < rows; ++r)
        detail::CopyNumber(to + r * width, at + r * rowBytes_, width);
      builders_[i].length += rows;
      at += width;
    }
    rows_.clear();
  }

  rw_fill_context* context_;
  std::shared_ptr<const detail::ModelData> data_;
  bool ordered_;
  std::shared_ptr<detail::WriterState> writer_;
  std::vector<detail::ColumnBuilder> builders_;
  std::vector<rw_column> views_;
  std::size_t entries_ = 0;
  std::size_t bytes_ = 0;
  bool due_ = false;
  /// The numbers of the entries gathered since the last hand-over, an entry's side by
  /// side (a row of rowBytes_), laid out as `layout_` names: rowWidths_ per field in the
  /// model's order, 0 for fields that are not numbers.
  detail::ByteBuffer rows_;
  std::vector<unsigned char> rowWidths_;
  std::size_t rowBytes_ = 0;
  std::uint64_t layout_ = 0;

  friend class ParallelWriter;
};

using RNTupleFillContext = FillContext;

/// How a writer writes (ROOT's RNTupleWriteOptions, with rootweave's memory budget).
class WriteOptions {
 public:
  WriteOptions() : options_(rw_writer_options_default()) {}
  /// ROOT's compression setting, algorithm * 100 + level (505 zstd 5, 404 LZ4, 101 zlib).
  WriteOptions& SetCompression(int setting) {
    options_.compression = setting;
    return *this;
  }
  /// The stored size clusters aim at (ROOT's SetApproxZippedClusterSize).
  WriteOptions& SetApproxZippedClusterSize(std::uint64_t bytes) {
    options_.cluster_bytes = bytes;
    return *this;
  }
  /// Bytes all buffered and unwritten data may take; fill calls wait beyond it.
  WriteOptions& SetMemoryBudget(std::uint64_t bytes) {
    options_.memory_budget = bytes;
    return *this;
  }
  /// Clusters enter the file in sequence-number order (FillContext::AppendSequence, or
  /// Fill and CommitStagedCluster).
  WriteOptions& SetOrdered(bool ordered) {
    options_.ordered = ordered;
    return *this;
  }
  /// The C options (for the C API).
  const rw_writer_options* Raw() const { return &options_; }

 private:
  rw_writer_options options_;
};

/// A ROOT file being written that holds several RNTuples and TTrees (ROOT's
/// TFile::Open(path, "RECREATE")). Close it after its writers.
class File {
 public:
  /// Creates (or overwrites) the file at `path`.
  static std::unique_ptr<File> Recreate(const std::string& path) {
    rw_file* file = nullptr;
    detail::Check(rw_file_recreate(path.c_str(), &file));
    return std::unique_ptr<File>(new File(file));
  }
  ~File() { rw_file_free(file_); }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  /// Writes the directory, keys and header; every writer in the file must be closed.
  void Close() { detail::Check(rw_file_close(file_)); }
  /// The C handle (for the C API).
  const rw_file* Raw() const { return file_; }

 private:
  explicit File(rw_file* file) : file_(file) {}
  rw_file* file_;
};

/// What RNTupleParallelWriter and TTreeParallelWriter share.
class ParallelWriter {
 public:
  /// Closes the writer if it is open (failures are lost: call Close to see them).
  virtual ~ParallelWriter() {
    try {
      Close();
    } catch (...) {
      // Destructors do not throw: call Close to see failures.
    }
    rw_writer_free(writer_);
  }
  ParallelWriter(const ParallelWriter&) = delete;
  ParallelWriter& operator=(const ParallelWriter&) = delete;

  /// A new fill context; thread-safe (ROOT's CreateFillContext).
  std::shared_ptr<FillContext> CreateFillContext() {
    rw_fill_context* context = nullptr;
    detail::Check(rw_writer_create_fill_context(writer_, &context));
    std::shared_ptr<FillContext> made(new FillContext(context, data_, ordered_, state_));
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->contexts.push_back(made);
    return made;
  }

  /// Hands over what every fill context gathered, commits their entries and writes the
  /// metadata; failures of producers are reported here. No context may be filling
  /// meanwhile; their later fills throw RW_CLOSED. The destructor closes too, but cannot
  /// report.
  void Close() {
    std::vector<std::shared_ptr<FillContext>> alive;
    {
      std::lock_guard<std::mutex> lock(state_->mutex);
      for (auto& weak : state_->contexts)
        if (auto context = weak.lock()) alive.push_back(std::move(context));
      state_->contexts.clear();
      state_->closed = true;
    }
    std::string failed;
    for (auto& context : alive) {
      try {
        context->HandOver(FillContext::Mode::Plain);
      } catch (const Error& e) {
        if (failed.empty()) failed = e.what();
      }
    }
    detail::Check(rw_writer_close(writer_));
    if (!failed.empty()) throw Error(RW_IO, "handing over a fill context's entries failed: " + failed);
  }

  /// The memory budget: limit, bytes taken now, most bytes ever taken.
  std::uint64_t GetBudgetLimit() const { return Budget(0); }
  std::uint64_t GetBudgetInUse() const { return Budget(1); }
  std::uint64_t GetBudgetPeak() const { return Budget(2); }

  /// Waits until budget is given back, at most `milliseconds`; whether some was.
  bool WaitForBudget(std::uint64_t milliseconds) {
    bool freed = false;
    detail::Check(rw_writer_wait_for_budget(writer_, milliseconds, &freed));
    return freed;
  }

  /// Calls `callback` (on the releasing thread) each time budget is given back, to
  /// requeue producers that TryFill turned away; it must be quick and must not call the
  /// writer. An empty function removes it.
  void SetBudgetCallback(std::function<void()> callback) {
    auto holder = callback ? std::make_unique<std::function<void()>>(std::move(callback)) : nullptr;
    detail::Check(rw_writer_set_budget_callback(writer_, holder ? &Trampoline : nullptr,
                                                holder.get()));
    callback_ = std::move(holder);
  }

  /// The C handle (for the C API).
  rw_writer* Raw() { return writer_; }

 protected:
  ParallelWriter(rw_writer* writer, std::shared_ptr<const detail::ModelData> data, bool ordered)
      : writer_(writer), data_(std::move(data)), ordered_(ordered) {}

  /// Makes writer W of `model` called `name` through the C call `make`, whose target is a
  /// path (recreate) or a file (append).
  template <class W, class Make, class Target>
  static std::unique_ptr<W> Open(Make make, const RNTupleModel& model, std::string_view name,
                                 Target target, const WriteOptions& options) {
    rw_writer* writer = nullptr;
    detail::Check(make(model.Raw(), std::string(name).c_str(), target, options.Raw(), &writer));
    return std::unique_ptr<W>(new W(writer, model.data_, options.Raw()->ordered));
  }

 private:
  static void Trampoline(void* user) { (*static_cast<std::function<void()>*>(user))(); }

  std::uint64_t Budget(int which) const {
    std::uint64_t v[3] = {0, 0, 0};
    detail::Check(rw_writer_budget(writer_, &v[0], &v[1], &v[2]));
    return v[which];
  }

  rw_writer* writer_;
  std::shared_ptr<const detail::ModelData> data_;
  bool ordered_;
  std::shared_ptr<detail::WriterState> state_ = std::make_shared<detail::WriterState>();
  std::unique_ptr<std::function<void()>> callback_;
};

/// Writes one RNTuple from many threads (ROOT's RNTupleParallelWriter).
class RNTupleParallelWriter final : public ParallelWriter {
 public:
  /// Creates (or overwrites) `storage` with RNTuple `ntupleName` of the model's fields.
  static std::unique_ptr<RNTupleParallelWriter> Recreate(std::unique_ptr<RNTupleModel> model,
                                                         std::string_view ntupleName,
                                                         std::string_view storage,
                                                         const WriteOptions& options = {}) {
    return Open<RNTupleParallelWriter>(rw_ntuple_writer_recreate, *model, ntupleName,
                                       std::string(storage).c_str(), options);
  }

  /// Starts RNTuple `ntupleName` in an open file.
  static std::unique_ptr<RNTupleParallelWriter> Append(std::unique_ptr<RNTupleModel> model,
                                                       std::string_view ntupleName, File& file,
                                                       const WriteOptions& options = {}) {
    return Open<RNTupleParallelWriter>(rw_ntuple_writer_append, *model, ntupleName, file.Raw(),
                                       options);
  }

 private:
  using ParallelWriter::ParallelWriter;
  friend class ParallelWriter;
};

/// Writes one TTree from many threads: the model's fields as branches (numbers as leaves,
/// std::vector and std::string as ROOT's TTree::Branch makes them, classes split as ROOT
/// splits them).
class TTreeParallelWriter final : public ParallelWriter {
 public:
  /// Creates (or overwrites) `storage` with tree `treeName` (a path with `/` puts it in
  /// directories).
  static std::unique_ptr<TTreeParallelWriter> Recreate(std::unique_ptr<RNTupleModel> model,
                                                       std::string_view treeName,
                                                       std::string_view storage,
                                                       const WriteOptions& options = {}) {
    return Open<TTreeParallelWriter>(rw_tree_writer_recreate, *model, treeName,
                                     std::string(storage).c_str(), options);
  }

  /// Starts tree `treeName` in an open file.
  static std::unique_ptr<TTreeParallelWriter> Append(std::unique_ptr<RNTupleModel> model,
                                                     std::string_view treeName, File& file,
                                                     const WriteOptions& options = {}) {
    return Open<TTreeParallelWriter>(rw_tree_writer_append, *model, treeName, file.Raw(), options);
  }

 private:
  using ParallelWriter::ParallelWriter;
  friend class ParallelWriter;
};

/// How ReadArrow reads (threads, batch size, bytes in flight, checksums).
class ReadOptions {
 public:
  ReadOptions() : options_(rw_read_options_default()) {}
  /// Decompression threads, which also read ahead (0: all cores).
  ReadOptions& SetThreads(std::size_t threads) {
    options_.threads = threads;
    return *this;
  }
  /// Each batch holds whole clusters of at least this many entries (0: one cluster).
  ReadOptions& SetStepEntries(std::uint64_t entries) {
    options_.step_entries = entries;
    return *this;
  }
  /// Bytes of stored data in flight at once (0: 256 MiB).
  ReadOptions& SetMemoryBudget(std::uint64_t bytes) {
    options_.memory_budget = bytes;
    return *this;
  }
  /// Verify the checksums the format carries.
  ReadOptions& SetVerifyChecksums(bool verify) {
    options_.verify_checksums = verify;
    return *this;
  }
  /// The C options (for the C API).
  const rw_read_options* Raw() const { return &options_; }

 private:
  rw_read_options options_;
};

/// One Arrow batch, released when it goes out of scope.
struct ArrowBatch {
  ArrowArray array{};
  ArrowBatch() = default;
  ArrowBatch(const ArrowBatch&) = delete;
  ArrowBatch& operator=(const ArrowBatch&) = delete;
  ~ArrowBatch() { Release(); }
  /// Releases the batch (if it holds one).
  void Release() {
    if (array.release) array.release(&array);
  }
};

/// A stream of record batches (whole clusters) of chosen columns, read in bulk and
/// decompressed on the library's threads while the caller works on the batch before:
/// the Arrow C stream interface, released when it goes out of scope.
class ArrowStream {
 public:
  ArrowStream(ArrowStream&& other) noexcept : stream_(other.stream_) { other.stream_.release = nullptr; }
  ArrowStream& operator=(ArrowStream&&) = delete;
  ArrowStream(const ArrowStream&) = delete;
  ~ArrowStream() {
    if (stream_.release) stream_.release(&stream_);
  }

  /// The batches' schema (a struct of the columns) into `out`, which the caller releases.
  void GetSchema(ArrowSchema& out) { Throw(stream_.get_schema(&stream_, &out)); }

  /// The next batch into `batch` (releasing what it held); false at the end.
  bool Next(ArrowBatch& batch) {
    batch.Release();
    Throw(stream_.get_next(&stream_, &batch.array));
    return batch.array.release != nullptr;
  }

  /// The C stream (for Arrow libraries that import it; the stream stays this object's).
  ArrowArrayStream* Raw() { return &stream_; }

 private:
  friend ArrowStream ReadArrow(const std::vector<std::string>&, std::string_view,
                               const std::vector<std::string>&, const ReadOptions&);
  ArrowStream() = default;

  void Throw(int code) {
    if (code == 0) return;
    const char* message = stream_.get_last_error ? stream_.get_last_error(&stream_) : nullptr;
    throw Error(code == 5 /* EIO */ ? RW_IO : RW_FORMAT,
                message ? message : "reading the Arrow stream failed");
  }

  ArrowArrayStream stream_{};
};

/// Reads the RNTuple or TTree `name` of `paths` (local files or URLs, one after another)
/// in batches of whole clusters holding `columns` (all top-level fields when empty).
inline ArrowStream ReadArrow(const std::vector<std::string>& paths, std::string_view name,
                             const std::vector<std::string>& columns = {},
                             const ReadOptions& options = {}) {
  std::vector<const char*> cPaths, cColumns;
  for (const auto& p : paths) cPaths.push_back(p.c_str());
  for (const auto& c : columns) cColumns.push_back(c.c_str());
  std::string cName(name);
  ArrowStream stream;
  detail::Check(rw_read_arrow(cPaths.data(), cPaths.size(), cName.c_str(), cColumns.data(),
                              cColumns.size(), options.Raw(), &stream.stream_));
  return stream;
}

/// The number of entries of the RNTuple or TTree `name` of the file at `path`.
inline std::uint64_t GetEntries(const std::string& path, const std::string& name) {
  std::uint64_t entries = 0;
  detail::Check(rw_read_entries(path.c_str(), name.c_str(), &entries));
  return entries;
}

/// Merges `inputs` into a new file `output`, as hadd does (baskets and pages copied).
inline void Merge(const std::string& output, const std::vector<std::string>& inputs) {
  std::vector<const char*> cInputs;
  for (const auto& i : inputs) cInputs.push_back(i.c_str());
  detail::Check(rw_merge(output.c_str(), cInputs.data(), cInputs.size()));
}

/// Recovers a file whose writer was killed into `output`; returns the entries kept.
inline std::uint64_t Recover(const std::string& input, const std::string& output) {
  std::uint64_t entries = 0;
  detail::Check(rw_recover(input.c_str(), output.c_str(), &entries));
  return entries;
}

/// The library's version string.
inline std::string Version() { return rw_version(); }

}  // namespace rootweave

#endif  // ROOTWEAVE_HPP
