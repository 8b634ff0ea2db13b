#pragma once

// A journal payload declared once: a record<S> lists the members of one JSON
// object in the order they are written, each with its key, the member of S
// it maps to and its presence, and the same declaration writes the payload
// and reads it back (codec_kinds.cpp declares one per event kind). The idea
// of tools/schema.hpp's object_schema without its JSON Schema: a payload is
// only ever written by this codec, so reading it checks types and throws
// bad_event instead of validating against a published schema.

#include "journal/codec_values.hpp"
#include "protocol/era.hpp"

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ttm::journal::fields {

/// What to_event adds to a change: written into its payload as stamps, never
/// read back into the change (the event's row holds the principal, era_of
/// reads the era).
struct context {
  std::string_view principal;
  protocol::era era = protocol::era::legacy;
};

// -- records --------------------------------------------------------------------

/// Whether a member is in the payload.
enum class presence {
  /// Always written; a payload without it is a bad event.
  required,
  /// Always written; absent (an older journal) reads as the member's
  /// default.
  defaulted,
  /// Left out when empty (an unset std::optional, an empty list or map, an
  /// empty string); absent reads as empty.
  absent_when_empty,
};

/// What writes and reads the members of one JSON object holding an S.
template <class S>
class object_fields {
public:
  virtual ~object_fields() = default;
  virtual void write_fields(writer& w, const S& x, const context& c) const = 0;
  virtual void read_fields(const json& obj, S& out) const = 0;
};

template <class S>
class record final : public object_fields<S> {
public:
  class entry {
  public:
    virtual ~entry() = default;
    virtual void write(writer& w, const S& x, const context& c) const = 0;
    virtual void read(const json& obj, S& out) const = 0;
  };

  /// An entry that reads into one member of S (the getters find it by it).
  template <class T>
  class member_entry : public entry {
  public:
    explicit member_entry(T S::*m, const char* key = nullptr)
      : member(m), key(key) {
    }
    T S::*member;
    const char* key; ///< null: its members are inline (a part)
  };

  /// One member: key, member of S, presence.
  template <class T>
  class field final : public member_entry<T> {
  public:
    field(const char* key, T S::*m, presence p)
      : member_entry<T>(m, key), presence_(p) {
      if (is_optional<T>::value && p != presence::absent_when_empty)
        throw std::logic_error(std::string{"journal payload member '"} + key
                               + "' is a std::optional: absent_when_empty");
    }

    /// Written only when `when(x)` holds (e.g. a count that only one kind
    /// of undone change has); absent reads as the default.
    field& only_if(bool (*when)(const S&)) {
      when_ = when;
      return *this;
    }

    /// The bad_event message when the member is absent or not of its type.
    field& or_else(const char* message) {
      or_else_ = message;
      return *this;
    }

    void write(writer& w, const S& x, const context&) const override {
      const T& v = x.*(this->member);
      if ((when_ && !when_(x))
          || (presence_ == presence::absent_when_empty && value<T>::empty(v)))
        return;
      w.Key(this->key);
      value<T>::write(w, v);
    }

    void read(const json& obj, S& out) const override {
      auto i = obj.FindMember(this->key);
      if (i == obj.MemberEnd()) {
        if (presence_ == presence::required)
          fail(or_else_ ? or_else_ : lacks(value<T>::noun, this->key));
        return;
      }
      if (!or_else_) {
        out.*(this->member) = value<T>::read(i->value, this->key);
        return;
      }
      try {
        out.*(this->member) = value<T>::read(i->value, this->key);
      } catch (const bad_event&) {
        fail(or_else_);
      }
    }

  private:
    presence presence_;
    bool (*when_)(const S&) = nullptr;
    const char* or_else_ = nullptr;
  };

  /// Adds the member `m` under `key`.
  template <class T>
  field<T>& add(const char* key, T S::*m, presence p) {
    auto f = std::make_shared<field<T>>(key, m, p);
    auto& ref = *f;
    entries_.push_back(std::move(f));
    return ref;
  }

  /// Adds the members of the struct in `m`, declared by `inner`, inline.
  template <class M>
  void part(M S::*m, std::shared_ptr<const object_fields<M>> inner) {
    entries_.push_back(std::make_shared<part_entry<M>>(m, std::move(inner)));
  }

  template <class M>
  void part(M S::*m, record<M> inner) {
    part(m, std::shared_ptr<const object_fields<M>>{
              std::make_shared<record<M>>(std::move(inner))});
  }

  /// Adds `m.inner` under `key` (a member of a struct member).
  template <class M, class T>
  typename record<M>::template field<T>&
  add(const char* key, M S::*m, T M::*inner, presence p) {
    record<M> r;
    auto& f = r.add(key, inner, p);
    part(m, std::move(r));
    return f;
  }

  /// Adds a list of objects under `key`, each declared by `item`; required.
  template <class E>
  void list(const char* key, std::vector<E> S::*m,
            std::shared_ptr<const object_fields<E>> item) {
    entries_.push_back(std::make_shared<list_entry<E>>(key, m, std::move(item)));
  }

  /// Adds a nested object under `key` whose members, declared by `inner`,
  /// are members of S too; required.
  void object(const char* key, record inner) {
    entries_.push_back(std::make_shared<object_entry>(key, std::move(inner)));
  }

  /// Adds `key` with a value from the event's context; never read back.
  void stamp(const char* key, std::string_view (*of)(const context&)) {
    entries_.push_back(std::make_shared<stamp_entry>(key, of));
  }

  void write_fields(writer& w, const S& x, const context& c) const override {
    for (const auto& e : entries_)
      e->write(w, x, c);
  }

  void read_fields(const json& obj, S& out) const override {
    for (const auto& e : entries_)
      e->read(obj, out);
  }

  /// Reads every member.
  S read(const json& obj) const {
    S out{};
    read_fields(obj, out);
    return out;
  }

  /// Reads only the member `m` (and what it holds), as a getter needs.
  template <class T>
  T read(const json& obj, T S::*m) const {
    S out{};
    if (!read_member(obj, out, m))
      throw std::logic_error("journal payload: an undeclared member");
    return std::move(out.*m);
  }

  /// The key `m` is written under (null for an inline part).
  template <class T>
  const char* key_of(T S::*m) const {
    for (const auto& e : entries_)
      if (auto* f = dynamic_cast<const member_entry<T>*>(e.get());
          f != nullptr && f->member == m)
        return f->key;
    throw std::logic_error("journal payload: an undeclared member");
  }

private:
  template <class T>
  bool read_member(const json& obj, S& out, T S::*m) const {
    for (const auto& e : entries_) {
      if (auto* f = dynamic_cast<const member_entry<T>*>(e.get());
          f != nullptr && f->member == m) {
        f->read(obj, out);
        return true;
      }
      if (auto* o = dynamic_cast<const object_entry*>(e.get());
          o != nullptr && o->inner.has(m)) {
        o->inner.read_member(o->object_in(obj), out, m);
        return true;
      }
    }
    return false;
  }

  template <class T>
  bool has(T S::*m) const {
    for (const auto& e : entries_) {
      if (auto* f = dynamic_cast<const member_entry<T>*>(e.get());
          f != nullptr && f->member == m)
        return true;
      if (auto* o = dynamic_cast<const object_entry*>(e.get());
          o != nullptr && o->inner.has(m))
        return true;
    }
    return false;
  }

  template <class M>
  class part_entry final : public member_entry<M> {
  public:
    part_entry(M S::*m, std::shared_ptr<const object_fields<M>> inner)
      : member_entry<M>(m), inner_(std::move(inner)) {
    }
    void write(writer& w, const S& x, const context& c) const override {
      inner_->write_fields(w, x.*(this->member), c);
    }
    void read(const json& obj, S& out) const override {
      inner_->read_fields(obj, out.*(this->member));
    }

  private:
    std::shared_ptr<const object_fields<M>> inner_;
  };

  template <class E>
  class list_entry final : public member_entry<std::vector<E>> {
  public:
    list_entry(const char* key, std::vector<E> S::*m,
               std::shared_ptr<const object_fields<E>> item)
      : member_entry<std::vector<E>>(m, key), item_(std::move(item)) {
    }
    void write(writer& w, const S& x, const context& c) const override {
      w.Key(this->key);
      w.StartArray();
      for (const auto& e : x.*(this->member)) {
        w.StartObject();
        item_->write_fields(w, e, c);
        w.EndObject();
      }
      w.EndArray();
    }
    void read(const json& obj, S& out) const override {
      auto i = obj.FindMember(this->key);
      if (i == obj.MemberEnd() || !i->value.IsArray())
        fail(lacks("array", this->key));
      auto& list = out.*(this->member);
      list.clear();
      list.reserve(i->value.Size());
      for (const auto& v : i->value.GetArray()) {
        if (!v.IsObject())
          fail(quoted(this->key) + " holds a non-object");
        E e{};
        item_->read_fields(v, e);
        list.push_back(std::move(e));
      }
    }

  private:
    std::shared_ptr<const object_fields<E>> item_;
  };

  class object_entry final : public entry {
  public:
    object_entry(const char* key, record inner)
      : inner(std::move(inner)), key_(key) {
    }
    void write(writer& w, const S& x, const context& c) const override {
      w.Key(key_);
      w.StartObject();
      inner.write_fields(w, x, c);
      w.EndObject();
    }
    void read(const json& obj, S& out) const override {
      inner.read_fields(object_in(obj), out);
    }
    const json& object_in(const json& obj) const {
      auto i = obj.FindMember(key_);
      if (i == obj.MemberEnd() || !i->value.IsObject())
        fail(lacks("object", key_));
      return i->value;
    }
    record inner;

  private:
    const char* key_;
  };

  class stamp_entry final : public entry {
  public:
    stamp_entry(const char* key, std::string_view (*of)(const context&))
      : key_(key), of_(of) {
    }
    void write(writer& w, const S&, const context& c) const override {
      w.Key(key_);
      write_string(w, of_(c));
    }
    void read(const json&, S&) const override {
    }

  private:
    const char* key_;
    std::string_view (*of_)(const context&);
  };

  std::vector<std::shared_ptr<entry>> entries_;
};

/// Objects of one struct in several shapes, told apart by the member `tag`
/// (e.g. a bulk edit's operations by their "op"): the members every shape
/// has (the tag's among them), then the tag's own.
template <class S, class K>
class tagged final : public object_fields<S> {
public:
  explicit tagged(K S::*tag) : tag_(tag) {
  }

  /// The members every shape has, first.
  record<S>& common() {
    return common_;
  }

  /// The members of the shape whose tag is `k`, after the common ones.
  record<S>& of(K k) {
    return shapes_[k];
  }

  void write_fields(writer& w, const S& x, const context& c) const override {
    common_.write_fields(w, x, c);
    if (const auto* r = shape(x.*tag_))
      r->write_fields(w, x, c);
  }

  void read_fields(const json& obj, S& out) const override {
    common_.read_fields(obj, out);
    if (const auto* r = shape(out.*tag_))
      r->read_fields(obj, out);
  }

private:
  const record<S>* shape(K k) const {
    auto i = shapes_.find(k);
    return i != shapes_.end() ? &i->second : nullptr;
  }

  K S::*tag_;
  record<S> common_;
  std::map<K, record<S>> shapes_; ///< node-based: of() references stay valid
};

} // namespace ttm::journal::fields
